"""A reset that clears every lru_cache the process holds, found by its type: a weak cache in its place is
another type, so the reset would miss it and a stale result would survive. WG006's fix is unsafe: by default
the codemod leaves it, and says what to check."""
# expect: refused: not a `functools._lru_cache_wrapper`
import functools
import gc

import torch
from torch import nn


@functools.lru_cache(maxsize=None)
def weight_norm(layer: nn.Linear) -> float:
    return round(float(layer.weight.norm()), 4)


def reset_every_cache() -> None:
    """What test helpers do between cases: clear each lru_cache wrapper that gc can see."""
    for obj in gc.get_objects():
        if isinstance(obj, functools._lru_cache_wrapper):
            obj.cache_clear()


def main() -> None:
    torch.manual_seed(0)
    layer = nn.Linear(4, 4)
    print("before", weight_norm(layer))
    with torch.no_grad():
        layer.weight.mul_(2.0)
    reset_every_cache()
    print("after reset", weight_norm(layer))
