"""§6: "name" in globals() tests a name, it reads no namespace whole."""
# expect: fixed
import torch
from torch import nn

seen = set()


def add(m: nn.Module) -> None:
    if "seen" in globals():
        seen.add(m)


def main() -> None:
    m = nn.Linear(2, 2)
    add(m)
    print(len(seen), m in seen)
