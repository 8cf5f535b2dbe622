"""Uses by every route: an id()-keyed map read in another module with `.get(id(w), default)`: the fix
keys the map by the objects in its own module only, and that read would miss from then on, silently."""
# expect: refused: only in its own module | which the rewrite may change
import torch
from torch import nn

from calib import scales


def main() -> None:
    torch.manual_seed(0)
    model = nn.Linear(3, 3)
    scales.calibrate(model.weight)
    print("scale", scales.scale_of(model.weight))
    print("read elsewhere", scales._SCALE.get(id(model.weight), "missing"))
