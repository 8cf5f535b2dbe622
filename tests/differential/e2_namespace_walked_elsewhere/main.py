"""§4: another module resets the state module by walking vars(state)."""
# expect: refused: namespace whole | reads attributes by name
import torch
from torch import nn

from pkg import reset, state


def main() -> None:
    m = nn.Linear(2, 2)
    state.add(m)
    reset.reset_all()
    print(len(state.cache))
