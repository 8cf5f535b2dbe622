"""Class 1: an id()-keyed cache of compiled blocks, where blocks compare equal by name (so a rebuilt block
is == the old one, but must get its own cache entry: that is why the cache is keyed by id())."""
# expect: refused: __eq__ | __hash__ | equal | identity
import torch
from torch import nn


class NamedBlock(nn.Module):
    def __init__(self, name: str, width: int) -> None:
        super().__init__()
        self.name = name
        self.proj = nn.Linear(width, width)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NamedBlock) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)


_prepared = {}


def prepare(block: NamedBlock) -> str:
    if id(block) not in _prepared:
        _prepared[id(block)] = [f"slot{len(_prepared)}"]  # a record: a map of bare strings pins nothing
    return _prepared[id(block)]


def main() -> None:
    old = NamedBlock("enc", 2)
    new = NamedBlock("enc", 4)  # rebuilt wider: equal by name, a different block
    print("equal by name:", old == new)
    print("slots:", prepare(old), prepare(new), prepare(old))
    print("entries:", len(_prepared))
    print("values:", sorted(_prepared.values()))
    print("output:", tuple(new.proj(torch.ones(1, 4)).shape))
