"""Module names, kept by a package that a script beside it imports."""
from torch import nn

names = {}


def index(model: nn.Module) -> None:
    for n, m in model.named_modules():
        names[m] = n or "root"
