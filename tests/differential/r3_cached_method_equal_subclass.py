"""§2 of the fix-safety issue: the cached method's class compares by identity, a subclass by value."""
# expect: refused: __eq__
import functools

import torch
from torch import nn


class Base(nn.Module):
    @functools.lru_cache(maxsize=None)
    def table(self, n: int) -> torch.Tensor:
        print("computing", n)
        return torch.arange(n)


class Named(Base):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Named) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)


def main() -> None:
    a, b = Named("x"), Named("x")
    print(a.table(2).tolist(), b.table(2).tolist(), Base.table.cache_info().hits)
