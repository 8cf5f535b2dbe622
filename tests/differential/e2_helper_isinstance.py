"""Class 2: a generic pretty-printer in the same module branches on the container's type."""
# expect: refused: type is checked | isinstance | passed
from torch import nn

frozen = set()


def describe(container) -> str:
    if isinstance(container, dict):
        return f"dict of {len(container)}"
    if isinstance(container, (set, frozenset)):
        return f"set of {len(container)}"
    return f"other ({type(container).__name__})"


def freeze(module: nn.Module) -> None:
    for p in module.parameters():
        p.requires_grad_(False)
        frozen.add(p)


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    freeze(model[0])
    print("frozen:", describe(frozen))
    print("requires grad:", [p.requires_grad for p in model.parameters()])
    print("members:", sorted(n for n, p in model.named_parameters() if p in frozen))
