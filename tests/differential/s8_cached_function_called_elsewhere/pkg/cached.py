import functools

from torch import nn


@functools.lru_cache(maxsize=None)
def device_of(module: nn.Module):
    return next(module.parameters()).device
