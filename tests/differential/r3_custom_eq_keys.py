"""Class 3: blocks that compare and hash by their name (so a rebuilt block finds its old settings);
lookups with an equal but not identical key hit in a dict."""
# expect: fixed
from torch import nn


class NamedBlock(nn.Module):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.proj = nn.Linear(2, 2)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NamedBlock) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)


block_lr = {}


def set_lr(block: NamedBlock, lr: float) -> None:
    block_lr[block] = lr


def main() -> None:
    encoder = NamedBlock("encoder")
    set_lr(encoder, 0.1)
    set_lr(NamedBlock("decoder"), 0.01)
    rebuilt = NamedBlock("encoder")
    print("rebuilt encoder found:", rebuilt in block_lr, block_lr.get(rebuilt))
    set_lr(rebuilt, 0.2)
    print("overwrote, not added:", len(block_lr), sorted(block_lr.values()))
    print("decoder by a fresh key:", block_lr[NamedBlock("decoder")])
    print("items:", sorted((b.name, lr) for b, lr in block_lr.items()))
    print("pop by an equal key:", block_lr.pop(NamedBlock("decoder")), len(block_lr))
    print("keep the first key object:", next(iter(block_lr)) is encoder)
