"""§4: objects built by a factory imported from a sibling module, owned only by the container."""
# expect: refused: only | built
import gc

from pkg import registry


def main() -> None:
    registry.add_fresh()
    gc.collect()
    print(len(registry.layers))
