"""Gradual unfreezing: remembers the step at which each block was unfrozen."""
from torch import nn

from . import registry

UNFROZEN_AT = {}
registry.register_state("freezer", __name__, "UNFROZEN" + "_AT")


def unfreeze(block: nn.Module, step: int) -> None:
    block.requires_grad_(True)
    UNFROZEN_AT[block] = step


def unfrozen_step(block: nn.Module) -> int:
    return UNFROZEN_AT.get(block, -1)
