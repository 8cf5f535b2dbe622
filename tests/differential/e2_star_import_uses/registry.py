"""Module names, imported elsewhere with `from registry import *`."""
from torch import nn

names = {}


def register(model: nn.Module) -> None:
    for n, m in model.named_modules():
        names[m] = n or "root"
