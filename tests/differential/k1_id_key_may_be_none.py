"""Class 1: an id()-keyed cache of fp16 copies of a layer's weight and bias; the bias may be None
(nn.Linear(..., bias=False)), and id(None) is a perfectly good dict key."""
# expect: fixed
import gc
from typing import Optional

import torch
from torch import nn

_half_copies = {}


def half(t: Optional[torch.Tensor]) -> Optional[torch.Tensor]:
    if id(t) not in _half_copies:
        _half_copies[id(t)] = None if t is None else t.detach().half()
    return _half_copies[id(t)]


def main() -> None:
    with_bias = nn.Linear(4, 2)
    without_bias = nn.Linear(4, 2, bias=False)
    for layer in (with_bias, without_bias):
        w, b = half(layer.weight), half(layer.bias)
        print(type(layer).__name__, w.dtype, None if b is None else b.dtype)
    print("cached:", len(_half_copies))
    print("bias None cached once:", half(without_bias.bias) is None, len(_half_copies))
    print("same copy twice:", half(with_bias.weight) is half(with_bias.weight))
    del with_bias, w, b
    gc.collect()
    print("[gc] cached once the biased layer is gone:", len(_half_copies))
