"""Attaches a rank-r adapter to linear layers and remembers each layer's rank."""
from torch import nn

from . import trial

ATTACHED = {}
trial.track()


def attach(layer: nn.Linear, rank: int) -> None:
    ATTACHED[layer] = rank


def rank_of(layer: nn.Linear) -> int:
    return ATTACHED.get(layer, 0)
