"""Class 1 (ownership: callers, by every route, across modules): another module hands the registry's
`add` to a list of callbacks and calls them with activations built on the spot. No call there names
`add`, so the calls checked were none; the map is the activations' only owner."""
# expect: refused: hands `Registry.add`, which fills it, to other code as a value
import gc

from torch import nn

from pkg.registry import REGISTRY, seen

CALLBACKS = [REGISTRY.add]


def main() -> None:
    for callback in CALLBACKS:
        callback(nn.GELU())
        callback(nn.Tanh())
    gc.collect()
    print("seen:", seen())
