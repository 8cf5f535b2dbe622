"""Class 7 (values): activation modules registered by name at import, each built in the call: the map is
their only owner."""
# expect: refused: passes `nn.ReLU()`
# codemod: --runtime import --unsafe-fixes
from torch import nn

ACTIVATIONS = {}


def register(name: str, module: nn.Module) -> None:
    ACTIVATIONS[name] = module


register("gelu", nn.GELU())
register("relu", nn.ReLU())


def main() -> None:
    print("activations:", list(ACTIVATIONS), [type(m).__name__ for m in ACTIVATIONS.values()])


if __name__ == "__main__":
    main()
