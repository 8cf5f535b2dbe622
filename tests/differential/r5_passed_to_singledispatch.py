"""Class 2 (uses by every route): a metrics logger turns state into JSON with a ``functools.singledispatch``
function that has an implementation registered for ``dict``. The table of gradient norms per parameter
is logged through it; as a ``WeakIdMap`` it would fall to the fallback implementation, and the logged
record would change."""
# expect: refused: a `functools.singledispatch` function, which picks what runs by its argument's type
import functools
import json

import torch
from torch import nn

GRAD_NORMS = {}


@functools.singledispatch
def to_jsonable(value: object) -> object:
    return "not serialised"


@to_jsonable.register(dict)
def _(value: dict) -> object:
    return {str(index): to_jsonable(item) for index, item in enumerate(value.values())}


@to_jsonable.register(float)
def _(value: float) -> object:
    return round(value, 5)


def record(model: nn.Module) -> None:
    for parameter in model.parameters():
        if parameter.grad is not None:
            GRAD_NORMS[parameter] = parameter.grad.norm().item()


def main() -> None:
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    model(torch.randn(4, 3)).sum().backward()
    record(model)
    print(json.dumps({"grad_norms": to_jsonable(GRAD_NORMS)}, sort_keys=True))
