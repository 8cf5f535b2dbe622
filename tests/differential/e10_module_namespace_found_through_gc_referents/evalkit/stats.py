"""Per-episode activation statistics: the largest absolute output each layer produced this episode."""
import torch
from torch import nn

ACT_MAX = {}
EPISODE_STATE = True  # evalkit.episodes resets this module between episodes


def observe(model: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        for layer in model:
            x = layer(x)
            ACT_MAX[layer] = max(ACT_MAX.get(layer, 0.0), round(x.abs().max().item(), 4))
    return x


def peak(layer: nn.Module) -> float:
    return ACT_MAX.get(layer, 0.0)
