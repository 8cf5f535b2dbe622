"""Class 1: owners of hooks keyed by module, where the root of a tree is registered with module None
(the evidence is `Optional[nn.Module]`, and None is a perfectly good dict key)."""
# expect: fixed
import gc
from typing import Optional

from torch import nn

hook_owner = {}


def register(module: Optional[nn.Module], owner: str) -> None:
    hook_owner[module] = owner


def owner_of(module: Optional[nn.Module]) -> str:
    return hook_owner.get(module, "nobody")


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    register(None, "global-hooks")
    for name, child in model.named_children():
        register(child, f"profiler:{name}")
    print("len:", len(hook_owner))
    print("root owner:", owner_of(None), hook_owner[None])
    print("child owners:", [owner_of(c) for c in model])
    print("model itself:", owner_of(model))
    print("None in:", None in hook_owner)
    print("values in order:", list(hook_owner.values()))
    register(None, "global-hooks-v2")
    print("overwrite None keeps its place:", list(hook_owner.values()))
    del model
    gc.collect()
    print("[gc] owners once the model is gone:", len(hook_owner))
    print("None still there:", hook_owner.pop(None), None in hook_owner)
