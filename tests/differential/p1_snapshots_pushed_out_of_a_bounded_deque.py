"""Class 1 (ownership: an owner that lets go by design): the last two EMA copies of a model live in a
`deque(maxlen=2)`; each new copy pushes the oldest out. A map keyed by each copy's parameters records the
step it was taken at, and the summary walks it: a weak map would have lost the copies the deque let go."""
# expect: refused: reads the whole container after that
import copy
import gc
from collections import deque

import torch
from torch import nn

RECENT = deque(maxlen=2)
TAKEN_AT = {}


def take(model: nn.Module, step: int) -> None:
    RECENT.append(copy.deepcopy(model))
    for param in RECENT[-1].parameters():
        TAKEN_AT[param] = step


def main() -> None:
    torch.manual_seed(0)
    model = nn.Linear(2, 1)
    for step in range(4):
        with torch.no_grad():
            model.weight.add_(0.1)
        take(model, step)
    gc.collect()
    print("steps recorded", sorted(set(TAKEN_AT.values())))


if __name__ == "__main__":
    main()
