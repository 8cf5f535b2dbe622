"""Class 7 (values), adversarial: blocks register themselves, and one is built and called inline: the
temporary is kept by nothing but the registry."""
# expect: refused: builds one that nothing else keeps
# codemod: --runtime import --unsafe-fixes
import gc

import torch
from torch import nn

_BLOCKS = {}


class Block(nn.Module):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.lin = nn.Linear(2, 2)
        _BLOCKS[name] = self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.lin(x)


def main() -> None:
    keep = Block("kept")
    print("shape", tuple(Block("scratch")(torch.ones(1, 2)).shape))
    gc.collect()
    print("names", list(_BLOCKS), "scratch" in _BLOCKS, keep is _BLOCKS["kept"])
