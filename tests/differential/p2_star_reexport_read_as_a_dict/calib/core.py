import torch
from torch import nn

ACT_MAX = {}


def observe(layer: nn.Module, x: torch.Tensor) -> None:
    ACT_MAX[layer] = round(layer(x).abs().max().item(), 4)
