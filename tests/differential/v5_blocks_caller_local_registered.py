"""§4: an object built in a caller's local variable and registered: the container keeps it after the caller returns."""
# expect: refused: only | built
import gc

import torch
from torch import nn

registry = set()


def register(m: nn.Module) -> None:
    registry.add(m)


def setup() -> None:
    local = nn.Linear(2, 2)
    register(local)


def main() -> None:
    setup()
    gc.collect()
    print(len(registry))
