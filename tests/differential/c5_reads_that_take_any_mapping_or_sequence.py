"""Uses that read the container through protocols the runtime honours, fixed since the proof work: a
binary-search list (``bisect.insort``/``bisect_left`` with ``key=``), ``itertools`` over it, an
``isinstance`` check against a tuple whose abstract type covers the builtin (also one that sends any other
value down another branch), and ``total |= X`` into a new dict. Each must print the same after the rewrite."""
# expect: fixed
import bisect
import collections.abc
import itertools

import torch
from torch import nn

SIZES = {}
BY_SIZE = []


def index(model: nn.Module) -> None:
    for module in model.modules():
        SIZES[module] = sum(p.numel() for p in module.parameters(recurse=False))
    for p in model.parameters():
        bisect.insort(BY_SIZE, p, key=lambda t: t.numel())


def first_at_least(n: int) -> int:
    return bisect.bisect_left(BY_SIZE, n, key=lambda t: t.numel())


def size_of(table, module: nn.Module) -> int:
    if isinstance(table, (dict, collections.abc.Mapping)):
        return table.get(module, -1)
    return int(table)


def report() -> None:
    total = {}
    total |= SIZES
    print("merged", sorted(total.values()), type(total).__name__)
    print("two smallest", [p.numel() for p in itertools.islice(itertools.chain(BY_SIZE, ()), 2)])
    print("is a mapping", isinstance(SIZES, (dict, collections.abc.Mapping)))
    print("is a sequence", isinstance(BY_SIZE, (list, collections.abc.Iterable)))


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    index(model)
    print("first with >= 6 elements at", first_at_least(6))
    print("sizes", [size_of(SIZES, m) for m in model], size_of(7, model))
    report()
