"""Class 3: hooks registered in order are torn down in reverse, through reversed() of the map's views
(dict views are reversible since Python 3.8)."""
# expect: fixed
import gc

import torch
from torch import nn

registration_order = {}


def register(model: nn.Module) -> None:
    for index, (name, module) in enumerate(model.named_children()):
        registration_order[module] = (index, name)


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2), nn.Sigmoid())
    register(model)
    print("forward:", [name for _, name in registration_order.values()])
    print("keys reversed:", [type(m).__name__ for m in reversed(registration_order.keys())])
    print("values reversed:", [i for i, _ in reversed(registration_order.values())])
    print("items reversed:", [(type(m).__name__, n) for m, (_, n) in reversed(registration_order.items())])
    print("output:", model(torch.ones(1, 2)).shape)
    model[1] = nn.GELU()
    gc.collect()
    print("[gc] after replacing the ReLU:", len(registration_order))
