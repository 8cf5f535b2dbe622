"""Class 1 (ownership: an owner that lets go through a helper): attention layers are listed in order at
calibration. `prune(block)` is handed one block of the model and replaces its attention with an identity.
The report then reads the listed layers by position: a weak list closes up the gap the pruned layer left,
so every later position names its neighbour."""
# expect: refused: reads the list by position after that
import gc

import torch
from torch import nn

ATTENTION = []


class Block(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.attn = nn.Linear(width, width)
        self.mlp = nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mlp(torch.relu(self.attn(x)))


def calibrate(model: nn.Sequential) -> None:
    for name, module in model.named_modules():
        if name.endswith("attn"):
            ATTENTION.append(module)


def prune(block: Block) -> None:
    block.attn = nn.Identity()


def report() -> list:
    return [(i, round(float(ATTENTION[i].weight.sum()), 4)) for i in range(len(ATTENTION))]


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(Block(3), Block(3), Block(3))
    calibrate(model)
    print("calibrated", report())
    prune(model[0])
    gc.collect()
    print("after pruning", report())


if __name__ == "__main__":
    main()
