"""Uses by every route: another module deletes entries while iterating the map (a dict raises at the
next step, and the job reports it)."""
# expect: refused: catches the error a dict or set raises
import torch
from torch import nn

import cleanup
from acts.table import ACTIVATIONS, remember


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 3), nn.Tanh(), nn.ReLU())
    print("remembered", remember(model))
    print(cleanup.forget({"ReLU"}))
    print("left", sorted(ACTIVATIONS.values()))
