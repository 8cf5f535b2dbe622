"""§4: cls.X = {} in __init_subclass__: each subclass's own container."""
# expect: fixed
import gc

import torch
from torch import nn


class Registry:
    seen = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.seen = {}

    @classmethod
    def remember(cls, m: nn.Module) -> None:
        cls.seen[m] = type(m).__name__


class Layers(Registry):
    pass


def main() -> None:
    m = nn.Linear(2, 2)
    Layers.remember(m)
    print(len(Layers.seen), len(Registry.seen))
    del m
    gc.collect()
    print("[gc] left:", len(Layers.seen))
