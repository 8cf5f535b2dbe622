"""The library's tracker: the model's top-level layers, in order, for a per-layer learning-rate schedule."""
from torch import nn

LAYERS = []


def track(model: nn.Module) -> None:
    for layer in model.children():
        LAYERS.append(layer)
