"""Layer names and parameter counts, kept by module-level containers."""
import functools

from torch import nn

names = {}


def record(model: nn.Module) -> None:
    for name, module in model.named_modules():
        names[module] = name or "root"


@functools.cache
def size(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
