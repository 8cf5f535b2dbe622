"""Gradient-norm bookkeeping: the parameters whose gradients were clipped."""
from torch import nn

CLIPPED = set()


def clip(model: nn.Module, limit: float) -> int:
    count = 0
    for p in model.parameters():
        if p.grad is not None and float(p.grad.norm()) > limit:
            p.grad.mul_(limit / float(p.grad.norm()))
            CLIPPED.add(p)
            count += 1
    return count
