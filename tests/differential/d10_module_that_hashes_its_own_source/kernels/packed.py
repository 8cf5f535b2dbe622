"""Packed Linear kernels: weight and bias packed once per layer, build cache keyed by this file's source."""
import hashlib
import inspect
import os
import sys

import torch
from torch import nn

# nn.Linear -> its weight with the bias appended as a last column
_PACKED = {}


def _pack(layer: nn.Linear):
    packed = _PACKED.get(layer)
    if packed is None:
        packed = torch.cat([layer.weight, layer.bias[:, None]], dim=1).detach().clone()
        _PACKED[layer] = packed
    return packed


def _linear(layer, x):
    w = _pack(layer)
    ones = torch.ones(x.shape[0], 1, dtype=x.dtype)
    return torch.cat([x, ones], dim=1) @ w.t()


def run(model: nn.Sequential, x):
    for layer in model:
        x = _linear(layer, x) if isinstance(layer, nn.Linear) else layer(x)
    return x


def _own_source():
    return inspect.getsource(sys.modules[__name__])


def build_tag():
    """Compiled artefacts are stale whenever this module's source changes."""
    return hashlib.sha256(_own_source().encode()).hexdigest()[:12]


def source_lines():
    return len(_own_source().splitlines())


def cache_dir(root):
    return os.path.join(root, f"packed-{build_tag()}")


def packed_count():
    return len(_PACKED)
