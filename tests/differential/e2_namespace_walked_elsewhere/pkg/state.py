from torch import nn

cache = {}


def add(m: nn.Module) -> None:
    cache[m] = 1
