"""A rotary embedding whose ``forward`` is ``functools.lru_cache``d, as in the wild: the cache is one
process-wide dict on the class's function, keyed by ``(self, seq_len)`` (WG006)."""
from __future__ import annotations

import functools

import torch
from torch import nn


class RotaryEmbedding(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim)))

    @functools.lru_cache(maxsize=None)
    def forward(self, seq_len: int) -> tuple[torch.Tensor, torch.Tensor]:
        angles = torch.outer(torch.arange(seq_len).float(), self.inv_freq)
        return angles.cos(), angles.sin()
