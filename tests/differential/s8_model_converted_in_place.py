"""A safe fix once refused: the entry point converts its model with `model = model.double()`, which
converts in place and returns the same module. The name is bound twice, but to one object, so the
modules indexed before the conversion keep their owner."""
# expect: fixed
import gc

import torch
from torch import nn

DEPTH = {}


def index(model: nn.Module) -> None:
    for name, module in model.named_modules():
        DEPTH[module] = name.count(".") + (1 if name else 0)


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 2)))
    index(model)
    model = model.double()
    gc.collect()
    print("depths:", [DEPTH[m] for m in model.modules()])
    print("dtype:", model[0].weight.dtype)
    del model
    gc.collect()
    print("[gc] entries left:", len(DEPTH))
