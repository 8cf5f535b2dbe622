"""§7: a layer registry that appends self in __init__: the layers are owned by their models."""
# expect: fixed
import gc
from typing import List

import torch
from torch import nn

LAYERS: List[nn.Module] = []


class Layer(nn.Module):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.proj = nn.Linear(n, n)
        LAYERS.append(self)


def main() -> None:
    model = nn.Sequential(Layer(2), Layer(3))
    print(len(LAYERS), LAYERS[0] is model[0], [type(layer).__name__ for layer in LAYERS])
    print(LAYERS.index(model[1]), LAYERS.count(model[0]), model[0] in LAYERS)
    del model
    gc.collect()
    print("[gc] layers left:", len(LAYERS))
