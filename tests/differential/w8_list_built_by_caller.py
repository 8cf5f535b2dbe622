"""Class 7 (values), adversarial: layers indexed by position from a list the caller builds in the call."""
# expect: refused: passes `[nn.Linear(2, 2) for _ in range(3)]`
# codemod: --runtime import --unsafe-fixes
import gc
from typing import List

from torch import nn

BY_INDEX = {}


def index_layers(layers: List[nn.Module]) -> None:
    for i, layer in enumerate(layers):
        BY_INDEX[i] = layer


index_layers([nn.Linear(2, 2) for _ in range(3)])


def main() -> None:
    gc.collect()
    print("indices", list(BY_INDEX), BY_INDEX[1])
