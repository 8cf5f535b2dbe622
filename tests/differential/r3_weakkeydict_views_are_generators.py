"""Class 3, WG004: a WeakKeyDictionary's keys(), values() and items() are one-shot generators; code that
takes the first with next() or walks one twice relies on that. The fix's views are not iterators."""
# expect: refused: is used other than by iterating it at once
import weakref

import torch

owners = weakref.WeakKeyDictionary()


def own(t: torch.Tensor, who: str) -> None:
    owners[t] = who


def main() -> None:
    a = torch.ones(2)
    own(a, "a")
    print("first owner:", next(owners.values()))
    items = owners.items()
    print("walked twice:", len(list(items)), len(list(items)))
