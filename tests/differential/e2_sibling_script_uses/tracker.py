"""A plain directory of scripts (no package): `main.py` imports this module by its bare name."""
from torch import nn

seen = set()


def visit(model: nn.Module) -> None:
    for p in model.parameters():
        seen.add(p)
