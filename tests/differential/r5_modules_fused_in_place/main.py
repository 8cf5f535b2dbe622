"""Class 1 (ownership), an owner that lets go: ``fuse_modules(..., inplace=True)`` folds each batch norm into
its convolution and puts an ``nn.Identity`` where the norm was, so a map keyed by the norms is their only
owner afterwards, and the report of what was folded reads it. Held weakly, the report would be empty."""
# expect: refused: in place, which puts new modules where the model held the old ones
import gc

import torch
from torch import nn
from torch.ao.quantization import fuse_modules

import norms


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU()).eval()
    with torch.no_grad():
        model(torch.randn(2, 3, 8, 8))
    norms.remember(model)
    fuse_modules(model, [["0", "1", "2"]], inplace=True)
    gc.collect()
    print("model", [type(m).__name__ for m in model])
    print("folded", sorted((name, round(norm.eps, 6), norm.num_features) for norm, name in norms.NORMS.items()))
