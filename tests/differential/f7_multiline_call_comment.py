"""Class 7 (formatting): a comment inside a multi-line defaultdict(...) call must survive the rewrite."""
# expect: fixed
import gc
from collections import defaultdict

import torch
from torch import nn

hook_handles = defaultdict(
    list,  # one list of handles per module, so each can be removed on its own
)


def noop(module, inputs, output) -> None:
    return None


def attach(model: nn.Module) -> None:
    for module in model.modules():
        hook_handles[module].append(module.register_forward_hook(noop))


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    attach(model)
    attach(model)
    print("handles per module:", [len(hook_handles[m]) for m in model.modules()])
    print("modules:", len(hook_handles))
    print("get does not insert:", hook_handles.get(model), len(hook_handles))
    model(torch.ones(1, 2))
    del model
    gc.collect()
    print("[gc] modules once the model is gone:", len(hook_handles))
