"""§6: @property over @lru_cache on a module method."""
# expect: fixed
# codemod: --runtime import --unsafe-fixes
import functools
import gc

import torch
from torch import nn


class Rotary(nn.Module):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    @property
    @functools.lru_cache(maxsize=None)
    def table(self) -> torch.Tensor:
        print("computing", self.n)
        return torch.arange(self.n)


def main() -> None:
    r = Rotary(3)
    print(r.table.tolist(), r.table.tolist())
