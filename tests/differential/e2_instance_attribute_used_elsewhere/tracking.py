"""A module-level tracker object whose set holds the parameters it visited."""
from torch import nn


class Tracker:
    def __init__(self) -> None:
        self.seen = set()

    def visit(self, model: nn.Module) -> None:
        for p in model.parameters():
            self.seen.add(p)


tracker = Tracker()
