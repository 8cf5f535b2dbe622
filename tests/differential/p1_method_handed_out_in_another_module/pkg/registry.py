import torch
from torch import nn

_SEEN_AT = {}


class Registry:
    def add(self, module: nn.Module) -> None:
        _SEEN_AT[module] = len(_SEEN_AT)


REGISTRY = Registry()


def seen() -> list:
    return sorted((index, type(module).__name__) for module, index in _SEEN_AT.items())
