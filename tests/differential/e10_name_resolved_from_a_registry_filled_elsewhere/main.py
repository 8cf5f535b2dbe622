"""Uses by routes: a state registry stores 'module:attr' strings built from __name__ and parts, resolves them with pkgutil.resolve_name and reports type(obj).__name__."""
# expect: refused: evaluates a name it is given with `pkgutil.resolve_name
import torch
from torch import nn

from trainkit import freezer, registry, schedule  # noqa: F401


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 1))
    model.requires_grad_(False)
    for step, idx in ((0, 4), (5, 2), (9, 0)):
        freezer.unfreeze(model[idx], step)
    print("unfrozen at", [freezer.unfrozen_step(model[i]) for i in (0, 2, 4)])
    print("trainable", sum(p.numel() for p in model.parameters() if p.requires_grad))
    print("checkpoint state", registry.describe())


if __name__ == "__main__":
    main()
