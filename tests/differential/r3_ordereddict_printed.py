"""Class 3: an OrderedDict of per-module learning rates that the program prints. An OrderedDict prints as
``OrderedDict({...})``; a WeakIdMap prints as the dict it stands for, so the fix must be refused."""
# expect: refused: prints as one
from collections import OrderedDict

from torch import nn

lr_of = OrderedDict()


def assign(model: nn.Module) -> None:
    for index, module in enumerate(model.children()):
        lr_of[module] = round(0.1 / (index + 1), 3)


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    assign(model)
    print("rates:", repr(lr_of).replace(repr(model[0]), "Linear").replace(repr(model[1]), "ReLU"))
