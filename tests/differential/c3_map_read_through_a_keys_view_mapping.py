"""An optimizer helper receives a keys view and reaches the table through `view.mapping` (Python 3.10+),
a read-only proxy of the dict, to look values up."""
# expect: fixed
import torch
from torch import nn

LR_SCALE = {}


def set_scale(p: nn.Parameter, value: float) -> None:
    LR_SCALE[p] = value


def scale_for(keys_view, p) -> float:
    table = keys_view.mapping
    return table[p] if p in keys_view else 1.0


def main() -> None:
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    set_scale(model.weight, 0.5)
    set_scale(model.bias, 2.0)
    view = LR_SCALE.keys()
    try:
        print("weight", scale_for(view, model.weight))
        print("bias", scale_for(view, model.bias))
    except AttributeError as e:
        print("AttributeError", type(view).__name__)
    print("n", len(view))
