"""§6: the map passed to ChainMap, Counter, str.format_map, typing.cast, heapq.nlargest(key=m.get)."""
# expect: fixed
import collections
import heapq
import typing

import torch
from torch import nn

sizes = {}


def record(m: nn.Module) -> None:
    sizes[m] = sum(p.numel() for p in m.parameters())


def main() -> None:
    a, b = nn.Linear(2, 2), nn.Linear(3, 3)
    record(a)
    record(b)
    merged = collections.ChainMap(sizes, {})
    print(len(merged), merged[a])
    counted = collections.Counter(sizes)
    print(sorted(counted.values()))
    print("{n} modules".format_map({"n": len(sizes)}))
    view = typing.cast(dict, sizes)
    print(len(view))
    top = heapq.nlargest(1, sizes, key=sizes.get)
    print(top[0] is b)
