"""§4: objects built by a factory imported from a sibling module, owned only by the container."""
# expect: refused: workspace
# (a workspace, WG007: the index reads what the annotated factory builds, as for a factory of the module itself)
import gc

from pkg import registry


def main() -> None:
    registry.add_fresh()
    gc.collect()
    print(len(registry.layers))
