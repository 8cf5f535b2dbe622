"""Uses by routes: a descriptor on a settings class returns the names map via import_module + getattr of a computed name, and validation checks isinstance(value, dict)."""
# expect: refused: and it spells `MODULE_NAMES` in some case
import torch
from torch import nn

from naming import names
from naming.settings import Settings


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 3))
    print("indexed", names.index(model))
    problems = Settings().problems()
    print("settings", "ok" if not problems else "; ".join(problems))
    x = torch.randn(2, 1, 8, 8)
    for layer in model:
        x = layer(x)
        print(names.qualname(layer), tuple(x.shape))


if __name__ == "__main__":
    main()
