"""A model compiled by torch.compile: dynamo installs its graph as a global of this module
(``__compiled_fn_1_...``), torch's own state, which ``torch._dynamo.reset()`` frees."""
from __future__ import annotations

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.first = nn.Linear(4, 4)
        self.second = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.second(torch.relu(self.first(x)))


def run_compiled() -> torch.Tensor:
    return torch.compile(Net(), backend="eager")(torch.randn(2, 4))
