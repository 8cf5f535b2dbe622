"""Records the output shape each layer produced in the last traced forward pass."""
import torch
from torch import nn

LAST_SHAPE = {}


def trace(model: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    for layer in model:
        x = layer(x)
        LAST_SHAPE[layer] = tuple(x.shape)
    return x


def shape_of(layer: nn.Module) -> tuple:
    return LAST_SHAPE.get(layer, ())
