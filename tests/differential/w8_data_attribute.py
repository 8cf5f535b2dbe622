"""Class 7 (values), adversarial: parameters cached by name as `p.data`, a new tensor object on every read,
which only the cache keeps."""
# expect: refused: a new tensor on every read of `.data`
# codemod: --runtime import --unsafe-fixes
import gc

import torch
from torch import nn

_WEIGHTS = {}


def cache_weights(model: nn.Module) -> None:
    for name, p in model.named_parameters():
        _WEIGHTS[name] = p.data


def main() -> None:
    model = nn.Linear(3, 2)
    cache_weights(model)
    gc.collect()
    print("names", list(_WEIGHTS))
    print("weight shape", tuple(_WEIGHTS["weight"].shape))
    print("shares storage", _WEIGHTS["bias"].data_ptr() == model.bias.data_ptr())
