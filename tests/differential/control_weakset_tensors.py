"""Control: a WeakSet of tensors already handed out, used only the ways a WeakSet of tensors survives
(each added once, iterated, counted); it becomes a WeakIdSet, and then membership works too."""
# expect: fixed
# codemod: --runtime import --unsafe-fixes
import gc
import weakref

import torch

_handed_out = weakref.WeakSet()


def hand_out(t: torch.Tensor) -> torch.Tensor:
    _handed_out.add(t)
    return t


def main() -> None:
    a = hand_out(torch.zeros(2, 2))
    b = hand_out(torch.ones(3))
    c = hand_out(torch.full((1,), 5.0))
    print("len:", len(_handed_out))
    print("shapes:", sorted(tuple(t.shape) for t in _handed_out))
    print("one-element membership:", c in _handed_out)
    del b
    gc.collect()
    print("after del b (weak on both sides):", len(_handed_out), sorted(tuple(t.shape) for t in _handed_out))
    print("a still there:", any(t is a for t in _handed_out))
