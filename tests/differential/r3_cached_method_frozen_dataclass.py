"""§2 of the fix-safety issue: a frozen dataclass compares by value; lru_cache shares entries between equal
instances."""
# expect: refused: __eq__
import functools
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Shape:
    rows: int
    cols: int

    @functools.lru_cache(maxsize=None)
    def zeros(self, like: torch.Tensor) -> torch.Tensor:
        print("building", self.rows, self.cols)
        return torch.zeros(self.rows, self.cols, dtype=like.dtype)


def main() -> None:
    t = torch.ones(1)
    print(Shape(2, 3).zeros(t).shape, Shape(2, 3).zeros(t).shape, Shape.zeros.cache_info().hits)
