"""§6: a method of the same name on another class is not the cached one."""
# expect: fixed
# codemod: --runtime import --unsafe-fixes
import functools

import torch
from torch import nn


class Rotary(nn.Module):
    @functools.lru_cache(maxsize=8)
    def table(self, n: int) -> torch.Tensor:
        return torch.arange(n)


class Plain:
    def table(self, n: int) -> list:
        return list(range(n))

    def use(self) -> int:
        table = self.table  # another class's method: nothing to do with the cache
        return len(table(2))


def main() -> None:
    r = Rotary()
    print(r.table(3).tolist(), Plain().use(), Plain.table.__qualname__)
