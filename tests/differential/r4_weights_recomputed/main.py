"""Class 4 (ownership through torch), across modules: one layer is under ``weight_norm``, so its ``.weight``
is a new tensor computed on each access and nothing but the map keeps the one that was read. Held weakly,
that entry would vanish; the fix is refused wherever the project parametrizes or prunes a module."""
# expect: refused: recomputes a module's weight
import gc

import torch
from torch import nn
from torch.nn.utils import parametrizations

import norms


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
    parametrizations.weight_norm(model[2])
    norms.remember(model)
    gc.collect()
    print("tracked", len(norms.START_NORMS), "drift", norms.drift())
