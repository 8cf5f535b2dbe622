"""§4: a test reset walks vars(sys.modules[__name__]) and clears every dict."""
# expect: refused: namespace whole
import sys

import torch
from torch import nn

cache = {}


def add(m: nn.Module) -> None:
    cache[m] = 1


def reset() -> None:
    for name, value in vars(sys.modules[__name__]).items():
        if not name.startswith("__") and isinstance(value, dict):
            value.clear()


def main() -> None:
    m = nn.Linear(2, 2)
    add(m)
    reset()
    print(len(cache))
