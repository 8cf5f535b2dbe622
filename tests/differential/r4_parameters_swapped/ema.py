"""An EMA of a model's parameters, kept in a module-level dict keyed by the parameters."""
import torch
from torch import nn

SHADOW = {}


def track(model: nn.Module) -> None:
    for p in model.parameters():
        SHADOW[p] = p.detach().clone()


@torch.no_grad()
def update(model: nn.Module, decay: float) -> None:
    for p in model.parameters():
        SHADOW[p].mul_(decay).add_(p.detach(), alpha=1 - decay)
