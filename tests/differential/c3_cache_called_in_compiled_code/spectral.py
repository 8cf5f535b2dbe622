import functools

import torch
from torch import nn

RUNS = []


@functools.lru_cache(maxsize=None)
def sigma_max(layer: nn.Linear, iterations: int) -> float:
    RUNS.append(iterations)
    weight = layer.weight.detach()
    vector = torch.ones(weight.shape[1])
    for _ in range(iterations):
        vector = weight.t() @ (weight @ vector)
        vector = vector / vector.norm()
    return float((weight @ vector).norm())
