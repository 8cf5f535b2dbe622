"""Class 5: a registry of activation modules filled at import time with `register(nn.GELU(), "gelu")`. The
caller builds each key in the call and keeps nothing: the registry is its only owner, so a weak container
would be empty before main() runs."""
# expect: refused: which the call at line
from torch import nn

ACTIVATIONS = {}


def register(module: nn.Module, name: str) -> None:
    ACTIVATIONS[module] = name


register(nn.ReLU(), "relu")
register(nn.GELU(), "gelu")


def by_name(name: str) -> nn.Module:
    return next(m for m, n in ACTIVATIONS.items() if n == name)


def main() -> None:
    print("registered:", sorted(ACTIVATIONS.values()))
    print("gelu is a:", type(by_name("gelu")).__name__)
