"""Class 3, WG004: `WeakKeyDictionary | d` and `WeakSet.union(...)` build another weak container, whose
entries go with their keys; the Strict fixes' operators build a plain dict or set, which keeps them."""
# expect: refused: it builds a new container
import gc
import weakref

import torch

scales = weakref.WeakKeyDictionary()
quantized = weakref.WeakSet()


def set_scale(t: torch.Tensor, s: float) -> None:
    scales[t] = s


def quantize(t: torch.Tensor) -> None:
    quantized.add(t)


def main() -> None:
    a, b = torch.ones(3), torch.zeros(3)
    set_scale(a, 1.0)
    quantize(a)
    merged = scales | {b: 2.0}
    both = quantized.union([b])
    print("merged:", type(merged).__name__, len(merged), "union:", type(both).__name__, len(both))
    del b
    gc.collect()
    print("once b is gone:", len(merged), len(both))
