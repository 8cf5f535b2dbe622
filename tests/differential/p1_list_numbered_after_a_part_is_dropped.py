"""Class 1 (ownership: an owner that lets go): a schedule lists a model's linear layers and gives each a
learning rate by its place (`enumerate`). The model drops its head (`model.head = None`) before the
schedule is read: a weak list closes up the gap, and every later layer gets its neighbour's rate."""
# expect: refused: reads the list by position after that
import gc

import torch
from torch import nn

LAYERS = []


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Linear(4, 4)
        self.head = nn.Linear(4, 4)
        self.out = nn.Linear(4, 2)


def collect(model: nn.Module) -> None:
    for module in model.modules():
        if isinstance(module, nn.Linear):
            LAYERS.append(module)


def rates() -> list:
    return [(layer.out_features, round(0.1 * 0.5 ** depth, 4)) for depth, layer in enumerate(LAYERS)]


def main() -> None:
    torch.manual_seed(0)
    model = Net()
    collect(model)
    print("rates:", rates())
    model.head = None
    gc.collect()
    print("rates after dropping the head:", rates()[-1])
