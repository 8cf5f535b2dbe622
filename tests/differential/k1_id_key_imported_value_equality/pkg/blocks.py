from dataclasses import dataclass

from torch import nn


class Named(nn.Module):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Named) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)


class Block(Named):
    pass
