"""Class 2: a helper merges two tables with `|`; the pinning map is one of them. The runtime's `|` returns a
plain dict, as a dict's does, so the fix keeps what it prints."""
# expect: fixed
from torch import nn

lr_scale = {}


def merged(defaults, overrides):
    return defaults | overrides


def set_scale(p: nn.Parameter, scale: float) -> None:
    lr_scale[p] = scale


def main() -> None:
    model = nn.Linear(3, 3)
    set_scale(model.weight, 0.1)
    extra = {model.bias: 1.0}
    both = merged(lr_scale, extra)
    print("merged type:", type(both).__name__, "len:", len(both))
    print("scales:", sorted(both.values()))
    print("weight scale:", both[model.weight])
