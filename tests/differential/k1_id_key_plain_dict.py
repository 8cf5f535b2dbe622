"""Class 1: an id()-keyed registry of settings objects: modules and plain option dicts side by side."""
# expect: refused: weakly referenced | weak-referenceable | weak reference | not known to be a framework object
import torch
from torch import nn

_applied = {}


def apply_to_module(module: nn.Module, scale: float) -> None:
    if id(module) in _applied:
        return
    with torch.no_grad():
        for p in module.parameters():
            p.mul_(scale)
    _applied[id(module)] = scale


def apply_options(options: dict) -> None:
    if id(options) in _applied:
        return
    options.setdefault("lr", 1e-3)
    _applied[id(options)] = len(options)


def main() -> None:
    layer = nn.Linear(2, 2)
    opts = {"momentum": 0.9}
    apply_to_module(layer, 0.5)
    apply_to_module(layer, 0.5)
    apply_options(opts)
    apply_options(opts)
    print("applied:", len(_applied))
    print("options:", sorted(opts))
    print("values:", sorted(map(str, _applied.values())))
