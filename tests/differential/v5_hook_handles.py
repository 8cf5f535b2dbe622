"""Class 5: forward-hook handles kept per module, so each hook can be removed on its own."""
# expect: fixed
import gc

import torch
from torch import nn

seen_shapes = []
handles = {}


def record_shape(module, inputs, output) -> None:
    seen_shapes.append(tuple(output.shape))


def attach(model: nn.Module) -> None:
    for module in model.children():
        handles[module] = module.register_forward_hook(record_shape)


def detach(module: nn.Module) -> None:
    handle = handles.pop(module, None)
    if handle is not None:
        handle.remove()


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    attach(model)
    model(torch.ones(1, 2))
    print("shapes:", seen_shapes)
    detach(model[1])
    seen_shapes.clear()
    model(torch.ones(1, 2))
    print("shapes after removing one hook:", seen_shapes, "handles:", len(handles))
    detach(model[1])
    print("detach twice is fine:", len(handles))
    del model
    gc.collect()
    print("[gc] handles once the model is gone:", len(handles))
