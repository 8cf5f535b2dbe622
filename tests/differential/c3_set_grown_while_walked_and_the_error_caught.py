"""A frozen-module set is walked while a helper freezes children it reaches; a set raises
`RuntimeError: Set changed size during iteration`, which the walker catches to restart the pass."""
# expect: refused: catches the error a dict or set raises
import torch
from torch import nn

FROZEN = set()


def freeze(m: nn.Module) -> None:
    for p in m.parameters(recurse=False):
        p.requires_grad_(False)
    FROZEN.add(m)


def spread() -> int:
    passes = 0
    while True:
        passes += 1
        try:
            for m in FROZEN:
                for child in m.children():
                    if child not in FROZEN:
                        freeze(child)
            return passes
        except RuntimeError as e:
            print("restart:", e)


def main() -> None:
    torch.manual_seed(0)
    inner = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    model = nn.Sequential(nn.Linear(2, 2), inner)
    freeze(model)
    print("passes", spread())
    print("frozen", len(FROZEN))
    print("trainable", sum(p.requires_grad for p in model.parameters()))
