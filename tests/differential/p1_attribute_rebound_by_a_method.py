"""A trainer holds its model in ``self.model`` and ``reset()`` rebinds it to a fresh model. Each step logs a
row in a module-level map keyed by ``self.model``, read after the reset, and the first model's row is still
expected there. The attribute keeps only the latest model, so the map is the first model's only owner: a
weak map would lose its row. An attribute a method other than ``__init__`` rebinds is no owner."""
# expect: refused: is rebound by `Trainer.reset`
import gc

import torch
from torch import nn

LOSSES = {}


class Trainer:
    def __init__(self) -> None:
        self.model = nn.Linear(4, 1)

    def reset(self) -> None:
        self.model = nn.Linear(4, 1)

    def step(self, tag: str) -> None:
        loss = self.model(torch.ones(2, 4)).pow(2).mean()
        LOSSES[self.model] = (tag, round(loss.item(), 5))


def main() -> None:
    torch.manual_seed(0)
    trainer = Trainer()
    trainer.step("first")
    trainer.reset()
    trainer.step("after reset")
    gc.collect()
    print("logged", len(LOSSES), sorted(LOSSES.values()))
    print("current", LOSSES[trainer.model][0])


if __name__ == "__main__":
    main()
