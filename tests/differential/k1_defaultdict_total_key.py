"""Class 1: a defaultdict(int) of forward-call counts keyed by module, with a running total under a
string key next to them. The string key cannot be weakly referenced, and the rewrite must still take it
(and keep it), while the module entries go with their modules."""
# expect: fixed
import gc
from collections import defaultdict

import torch
from torch import nn

forward_calls = defaultdict(int)


def count_calls(module: nn.Module, inputs, output) -> None:
    forward_calls[module] += 1
    forward_calls["total"] += 1


def describe(key) -> str:
    return key if isinstance(key, str) else type(key).__name__


def main() -> None:
    model = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1))
    names = {m: n for n, m in model.named_modules()}
    for layer in model:
        layer.register_forward_hook(count_calls)
    for _ in range(3):
        model(torch.ones(2, 3))
    print("total:", forward_calls["total"], "get:", forward_calls.get("total"), "total" in forward_calls)
    print("per layer:", sorted((names[m], c) for m, c in forward_calls.items() if not isinstance(m, str)))
    print("order:", [describe(k) for k in forward_calls])
    print("len:", len(forward_calls))
    print("unseen string reads as zero:", forward_calls["warmup"], "warmup" in forward_calls)
    print("keys after a defaulting read:", [describe(k) for k in forward_calls])
    print("pop a string:", forward_calls.pop("warmup"), forward_calls.pop("warmup", None))
    del model, names, layer
    gc.collect()
    print("[gc] keys once the model is gone:", len(forward_calls))
    print("the total survives:", forward_calls["total"])
