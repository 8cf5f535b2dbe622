"""A workspace the module allocates for itself at import time (WG007): created before any test, so no
test's pin, however often a test writes into it."""
from __future__ import annotations

import torch

WORKSPACE = [torch.zeros(4096)]


def accumulate(tensor: torch.Tensor) -> torch.Tensor:
    WORKSPACE[0][: tensor.numel()] += tensor.flatten()
    return WORKSPACE[0]
