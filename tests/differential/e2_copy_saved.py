"""Class 2: a copy of the container escapes. `lr_scale.copy()` is a WeakIdMap after the fix, and the
snapshot is saved with torch.save, which cannot pickle one: the copy must be judged as the container."""
# expect: refused: its copy `lr_scale.copy()`
import io

import torch
from torch import nn

lr_scale = {}


def scale(p: nn.Parameter, value: float) -> None:
    lr_scale[p] = value


def checkpoint() -> int:
    snapshot = lr_scale.copy()
    buffer = io.BytesIO()
    torch.save(snapshot, buffer)
    return len(snapshot)


def main() -> None:
    model = nn.Linear(2, 2)
    scale(model.weight, 0.5)
    scale(model.bias, 2.0)
    try:
        print("saved entries:", checkpoint())
    except TypeError as error:
        print("save failed:", type(error).__name__)
