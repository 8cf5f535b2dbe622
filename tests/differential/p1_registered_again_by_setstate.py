"""Class 1 (ownership: instances no call builds): a block registers itself when built and again when
`copy.deepcopy` restores a copy through `__setstate__`. The copy is dropped at once; the set of live
blocks is its only owner, and it is read back."""
# expect: refused: is an instance that `copy` or `pickle` makes
import copy
import gc

from torch import nn

LIVE_BLOCKS = set()


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(2, 2)
        LIVE_BLOCKS.add(self)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        LIVE_BLOCKS.add(self)


def main() -> None:
    block = Block()
    copy.deepcopy(block)
    gc.collect()
    print("live blocks:", len(LIVE_BLOCKS))
    print("copies:", sum(other is not block for other in LIVE_BLOCKS))
