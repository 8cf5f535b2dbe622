"""§7: a stack of modules pushed in a pre-hook and popped in a post-hook (duplicates and order kept)."""
# expect: fixed
import gc

import torch
from torch import nn

STACK = []


def push(module: nn.Module, inputs) -> None:
    STACK.append(module)


def pop(module: nn.Module, inputs, output) -> None:
    assert STACK.pop() is module


def main() -> None:
    inner = nn.Linear(2, 2)
    outer = nn.Sequential(inner, inner)
    for m in (outer, inner):
        m.register_forward_pre_hook(push)
        m.register_forward_hook(pop)
    STACK.append(outer)  # a stray push nothing pops
    outer(torch.ones(1, 2))
    print(len(STACK), STACK[-1] is outer, STACK == [outer])
    del outer, inner, m
    gc.collect()
    print("[gc] stack:", len(STACK))
