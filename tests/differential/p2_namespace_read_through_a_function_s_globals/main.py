"""Uses by every route: a debug helper reaches the map through the `__globals__` of a function handed to
it, and snapshots every dict there."""
# expect: refused: module namespace whole
import torch
from torch import nn

import debugtools
from acts.table import kinds, remember


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1), nn.Tanh())
    print("remembered", remember(model), kinds())
    print("state", debugtools.dump_state(kinds))
