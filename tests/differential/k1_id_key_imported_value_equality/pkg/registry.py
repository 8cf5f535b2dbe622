from torch import nn

from .blocks import Block

by_id = {}


def remember(block: Block, value: int) -> None:
    by_id[id(block)] = value


def lookup(block: Block) -> int:
    return by_id[id(block)]
