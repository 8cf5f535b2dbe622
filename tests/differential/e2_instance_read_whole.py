"""Class 2: a module-level registry whose own method walks `self.__dict__` (a config dump) sees the
container's type, so the fix must treat the instance as taking the container along."""
# expect: refused: reads its instance whole with `self.__dict__`
from torch import nn


class Registry:
    def __init__(self) -> None:
        self.label = "main"
        self.names = {}

    def add(self, m: nn.Module, name: str) -> None:
        self.names[m] = name

    def dump(self) -> dict:
        return {key: type(value).__name__ for key, value in self.__dict__.items()}


registry = Registry()


def main() -> None:
    layer = nn.Linear(1, 1)
    registry.add(layer, "fc")
    print(registry.dump(), len(registry.names))
