"""Freezes submodules of a model and remembers which ones it froze."""
from torch import nn

FROZEN = set()


def freeze(model: nn.Module, kinds=(nn.Embedding, nn.LayerNorm)) -> int:
    for module in model.modules():
        if isinstance(module, kinds):
            module.requires_grad_(False)
            FROZEN.add(module)
    return len(FROZEN)
