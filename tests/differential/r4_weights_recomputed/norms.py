"""Tracks the norm of each linear layer's weight at the start of training."""
import torch
from torch import nn

START_NORMS: dict[torch.Tensor, float] = {}  # weight tensor -> its norm when training started


def remember(model: nn.Module) -> None:
    for module in model.modules():
        if isinstance(module, nn.Linear):
            START_NORMS[module.weight] = round(float(module.weight.detach().norm()), 4)


def drift() -> list:
    return [round(float(weight.detach().norm()) - start, 4) for weight, start in START_NORMS.items()]
