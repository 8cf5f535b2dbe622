"""Uses by every route: the id()-keyed table is re-exported by the package under another name inside
an `if` block; this file reads it with `.get(id(w))` and counts its int keys."""
# expect: refused: fix changes its keys
import torch
from torch import nn

from quant import SCALE_TABLE, calibrate, scale_of


def main() -> None:
    torch.manual_seed(0)
    model = nn.Linear(3, 3)
    calibrate(model.weight)
    calibrate(model.bias)
    print("scale", scale_of(model.weight))
    print("read by id", SCALE_TABLE.get(id(model.weight), "missing"))
    print("int keys", sum(isinstance(k, int) for k in SCALE_TABLE))
