"""Class 4 (the replaced type's contract), WG004: a WeakKeyDictionary finds a key by ``==``, and a NaN
scalar is not equal to itself. A loss scaler remembers the scale of each scaled loss; the NaN loss is not
found, so its gradients are left as they are and the scale backs off. Found by identity, the NaN loss
would be unscaled like any other: the fix is offered only with --unsafe-fixes."""
# expect: refused: a NaN scalar
import weakref

import torch
from torch import nn

_scale_of = weakref.WeakKeyDictionary()  # scaled loss -> the scale it was multiplied by
_scale = [1024.0]


def scale(loss: torch.Tensor) -> torch.Tensor:
    scaled = loss * _scale[0]
    _scale_of[scaled] = _scale[0]
    return scaled


def unscale_factor(scaled: torch.Tensor) -> float:
    return 1.0 / _scale_of[scaled] if scaled in _scale_of else 1.0


def main() -> None:
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    for x in (torch.randn(4, 3), torch.full((4, 3), float("nan")), torch.randn(4, 3)):
        model.zero_grad()
        scaled = scale(model(x).pow(2).mean())
        scaled.backward()
        factor = unscale_factor(scaled)
        if not bool(torch.isfinite(scaled)):
            _scale[0] /= 2
        print(f"factor={factor} scale={_scale[0]} grad={model.weight.grad.abs().sum().item() * factor:.4g}")
