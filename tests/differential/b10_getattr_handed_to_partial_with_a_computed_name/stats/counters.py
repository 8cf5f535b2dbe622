"""Counts the calls each layer receives during a run."""
from torch import nn

CALLS = {}


def watch(model: nn.Module) -> int:
    hooked = 0
    for module in model.modules():
        if isinstance(module, (nn.Linear, nn.ReLU)):
            CALLS[module] = 0
            module.register_forward_hook(_count)
            hooked += 1
    return hooked


def _count(module: nn.Module, args, output) -> None:
    CALLS[module] += 1
