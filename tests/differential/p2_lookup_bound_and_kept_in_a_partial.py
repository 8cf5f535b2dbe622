"""Uses: a lookup bound with functools.partial and kept in a table of accessors."""
# expect: refused: handed on as a value
import functools
import gc

import torch
from torch import nn

NAMES = {}
ACCESSORS = {}


def index(model: nn.Module) -> None:
    for name, module in model.named_modules():
        NAMES[module] = name or "<root>"
    ACCESSORS["name"] = functools.partial(NAMES.get)


MODEL = nn.Sequential(nn.Linear(2, 2), nn.ReLU())


def main() -> None:
    index(MODEL)
    lookup = ACCESSORS["name"]
    print("first:", lookup(MODEL[0]))
    print("type of bound:", type(lookup.func.__self__).__name__)
    gc.collect()
    print("[gc] size:", len(NAMES))
