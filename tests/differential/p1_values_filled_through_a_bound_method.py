"""Class 1 (ownership, for a value map too): a registry's `add` is handed out as a bound method and
called with activations built in the call. WG008's own check looked only at calls naming `add`; the
owner proof now covers value maps, and refuses what is handed out."""
# expect: refused: is handed out as a value
# codemod: --runtime import --unsafe-fixes
import gc

from torch import nn

ACTIVATIONS = {}


class Registry:
    def add(self, name: str, module: nn.Module) -> None:
        ACTIVATIONS[name] = module


REGISTRY = Registry()


def main() -> None:
    add = REGISTRY.add
    add("gelu", nn.GELU())
    add("relu", nn.ReLU())
    gc.collect()
    print("registered:", sorted(ACTIVATIONS))
    print("gelu:", type(ACTIVATIONS.get("gelu")).__name__)
