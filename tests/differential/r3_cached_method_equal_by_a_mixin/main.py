"""§2 of the fix-safety issue: value equality from a mixin in another module (lru_cache shares entries
between equal instances; the fix would have to hold them as it does)."""
# expect: refused: __eq__
import functools

import torch
from torch import nn

from pkg.mixins import ByName


class Rotary(ByName, nn.Module):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    @functools.lru_cache(maxsize=None)
    def table(self, n: int) -> torch.Tensor:
        print("computing", self.name, n)
        return torch.arange(n)


def main() -> None:
    a, b = Rotary("x"), Rotary("x")
    print(a.table(3).tolist(), b.table(3).tolist(), Rotary.table.cache_info().hits)
