import torch
from torch import nn

PACKED = {}


class Fused(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.inner = nn.Linear(2, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self not in PACKED:
            PACKED[self] = self.inner.weight.detach().clone()
        return x @ PACKED[self].T
