"""Class 1 (ownership: callers, by every route): `remember` is handed to a registrar decorator, and the
table it is filed in is called with layers built on the spot. No call names `remember`, so "its callers
keep what they pass" has nothing to rest on: the index of layers is their only owner."""
# expect: refused: is handed to `@on_layer`
import gc

from torch import nn

HANDLERS = []
LAYER_NAMES = {}


def on_layer(handler):
    HANDLERS.append(handler)
    return handler


@on_layer
def remember(layer: nn.Module) -> None:
    LAYER_NAMES[layer] = type(layer).__name__


def main() -> None:
    for handler in HANDLERS:
        handler(nn.Linear(3, 2))
        handler(nn.GELU())
    gc.collect()
    print("names:", sorted(LAYER_NAMES.values()))
    print("widths:", [getattr(layer, "in_features", None) for layer in LAYER_NAMES])
