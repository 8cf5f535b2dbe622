"""Per-parameter gradient clipping plugin: loaded by the trainer from its source text, not imported."""
import torch
from torch import nn

# parameter -> qualified name, parameter -> how many times its gradient was clipped
_NAMES = {}
_CLIPS = {}


class GradClipPlugin:
    """Clips each parameter's gradient norm to `limit` and counts the clips."""

    def __init__(self, limit):
        self.limit = limit

    def attach(self, model: nn.Module):
        for name, p in model.named_parameters():
            _NAMES[p] = name
            _CLIPS[p] = 0

    def after_backward(self, model: nn.Module):
        for p in model.parameters():
            if p.grad is None:
                continue
            norm = p.grad.norm().item()
            if norm > self.limit:
                p.grad.mul_(self.limit / norm)
                _CLIPS[p] += 1

    def summary(self, model: nn.Module):
        return [f"{_NAMES[p]}: clipped {_CLIPS[p]}x" for p in model.parameters()]

    def tracked(self):
        return len(_NAMES)


def _norm_of(t: torch.Tensor) -> float:
    return t.norm().item()
