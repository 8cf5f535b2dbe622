"""Class 1 (ownership: `self`'s parts let go of where the instance is kept): a mixture of experts lists its
experts in `__init__` in the order its router numbers them. The training script keeps the model and deletes
one expert (`del model.experts[1]`); the load report then asks each remaining expert for its router slot by
`EXPERT_SLOTS.index(expert)`: a weak list closes up the deleted expert's place, and the slots shift."""
# expect: refused: reads the list by position after that
import gc

import torch
from torch import nn

EXPERT_SLOTS = []


class Mixture(nn.Module):
    def __init__(self, experts: int) -> None:
        super().__init__()
        self.experts = nn.ModuleList(nn.Linear(2, 2) for _ in range(experts))
        for expert in self.experts.children():
            EXPERT_SLOTS.append(expert)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return sum(expert(x) for expert in self.experts)


def slot_of(expert: nn.Module) -> int:
    return EXPERT_SLOTS.index(expert)


def main() -> None:
    torch.manual_seed(0)
    model = Mixture(3)
    load = [0.5, 0.2, 0.3]
    del model.experts[1]
    gc.collect()
    for expert in model.experts:
        print("expert load", load[slot_of(expert)])


if __name__ == "__main__":
    main()
