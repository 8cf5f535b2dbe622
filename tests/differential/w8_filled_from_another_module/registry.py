"""The registry: layers by name, filled by this module's own helper with the caller's modules."""
from torch import nn

layers = {}


def register(name: str, module: nn.Module) -> None:
    layers[name] = module
