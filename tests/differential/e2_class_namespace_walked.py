"""Class 2: a class keeps two class-level caches, and reset() clears every dict it finds in vars(cls).
After the fix they are no dicts, so reset() would clear nothing: the namespace walk is an escape."""
# expect: refused: `Caches` is read whole with `vars(cls)`
from torch import nn


class Caches:
    names = {}
    sizes = {}

    @classmethod
    def remember(cls, m: nn.Module) -> None:
        cls.names[m] = type(m).__name__
        cls.sizes[m] = sum(p.numel() for p in m.parameters())

    @classmethod
    def reset(cls) -> int:
        cleared = 0
        for value in vars(cls).values():
            if isinstance(value, dict):
                value.clear()
                cleared += 1
        return cleared


def main() -> None:
    layer = nn.Linear(2, 2)
    Caches.remember(layer)
    print("cleared:", Caches.reset(), "left:", len(Caches.names), len(Caches.sizes))
