"""Class 5: a module-level registry object filled at import time through its method,
`registry.add(nn.GELU(), "gelu")`: the caller builds each key in the call, so the registry is its only
owner and a weak container would be empty before main() runs."""
# expect: refused: which the call at line
from torch import nn


class Registry:
    def __init__(self) -> None:
        self.table = {}

    def add(self, module: nn.Module, name: str) -> None:
        self.table[module] = name

    def names(self) -> list:
        return sorted(self.table.values())


registry = Registry()
registry.add(nn.ReLU(), "relu")
registry.add(nn.GELU(), "gelu")


def main() -> None:
    print("registered:", registry.names(), len(registry.table))
