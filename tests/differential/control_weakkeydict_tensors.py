"""Control: a WeakKeyDictionary of activations keyed by tensor, used only in the ways it survives with
tensor keys (insertion, iteration, one-element lookups). Asked for with --unsafe-fixes (WG004's fix finds
keys by identity, not by ``==``), it becomes a WeakIdMap and keeps the transcript."""
# expect: fixed
# codemod: --runtime import --unsafe-fixes
import gc
import weakref

import torch

_saved_norms = weakref.WeakKeyDictionary()


def remember(t: torch.Tensor) -> None:
    _saved_norms[t] = round(float(t.float().norm()), 3)


def main() -> None:
    a = torch.arange(6.0).reshape(2, 3)
    b = torch.ones(4)
    c = torch.tensor([7.0])
    for t in (a, b, c):
        remember(t)
    print("len:", len(_saved_norms))
    print("values:", sorted(_saved_norms.values()))
    print("shapes:", sorted(tuple(t.shape) for t in _saved_norms))
    print("one-element lookup:", _saved_norms[c], c in _saved_norms)
    print("items:", sorted((tuple(k.shape), v) for k, v in _saved_norms.items()))
    remember(c)
    print("re-remember keeps len:", len(_saved_norms))
    del b
    gc.collect()
    print("after del b:", len(_saved_norms))  # weak in both: equal
    _saved_norms.clear()
    print("cleared:", len(_saved_norms))
