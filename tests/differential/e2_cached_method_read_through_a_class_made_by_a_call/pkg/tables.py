import functools

import torch
from torch import nn


class Rotary(nn.Module):
    @functools.lru_cache(maxsize=8)
    def table(self, n: int) -> torch.Tensor:
        return torch.arange(n)
