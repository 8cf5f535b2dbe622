"""Ownership: another module fills the set with layers it builds in the call, so the set is their only
owner: a weak set would be empty after the import."""
# expect: refused: which keeps it
from zoo import builtin, registry  # noqa: F401


def main() -> None:
    print("layers", registry.count(), sorted(type(layer).__name__ for layer in registry.LAYERS))
