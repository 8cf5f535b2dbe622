"""Uses by routes: the exporter reaches the shape table by eval() of 'sys.modules[...].NAME' built at run time, and serialises it only if isinstance(x, dict)."""
# expect: refused: evaluates a name it is given
import torch
from torch import nn

from probe import export, shapes


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 4), nn.ReLU(), nn.Linear(4, 3))
    out = shapes.trace(model, torch.randn(2, 6))
    print("out", tuple(out.shape), round(out.sum().item(), 4))
    print("first layer", shapes.shape_of(model[0]))
    print("export", export.export())


if __name__ == "__main__":
    main()
