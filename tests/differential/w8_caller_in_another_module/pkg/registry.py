"""Modules by name, filled by `register()` and by blocks that register themselves."""
from torch import nn

_MODULES = {}


def register(name: str, module: nn.Module) -> None:
    _MODULES[name] = module


def lookup(name: str) -> nn.Module:
    return _MODULES[name]
