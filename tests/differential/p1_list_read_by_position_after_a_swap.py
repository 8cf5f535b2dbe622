"""Class 1 (ownership: an owner that lets go): a probe lists the layers of a model in order and reads them
back by position. The model, the entry point's local, replaces its second layer before the report: the
list's positions then name other layers once a weak list closes up the gap."""
# expect: refused: reads the list by position after that
import gc

import torch
from torch import nn

PROBED = []


def probe(model: nn.Sequential) -> None:
    for layer in model:
        PROBED.append(layer)


def report() -> list:
    return [type(PROBED[i]).__name__ for i in range(len(PROBED)) if i % 2 == 1]


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2), nn.Tanh())
    probe(model)
    print("odd layers:", report())
    model[1] = nn.GELU()
    gc.collect()
    print("odd layers after the swap:", report())
    print("last probed:", type(PROBED[-1]).__name__)


if __name__ == "__main__":
    main()
