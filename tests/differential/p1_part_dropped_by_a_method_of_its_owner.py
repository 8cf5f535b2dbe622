"""Class 1 (ownership: `self` lets go of a part): a two-tower model records the size of each of its
parameters, keyed by the parameter, when it is built. `drop_text_tower()` deletes one tower to save memory;
the budget printed at the end walks the record and sums every parameter it has seen, which the record alone
keeps once the tower is gone."""
# expect: refused: reads the whole container after that
import gc

import torch
from torch import nn

PARAM_BYTES = {}


class TwoTower(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.image = nn.Linear(8, 4)
        self.text = nn.Linear(16, 4)
        for param in self.parameters():
            PARAM_BYTES[param] = param.numel() * param.element_size()

    def drop_text_tower(self) -> None:
        del self.text


def budget() -> int:
    return sum(PARAM_BYTES.values())


def main() -> None:
    torch.manual_seed(0)
    model = TwoTower()
    print("budget at build", budget())
    model.drop_text_tower()
    gc.collect()
    print("budget after the drop", budget())


if __name__ == "__main__":
    main()
