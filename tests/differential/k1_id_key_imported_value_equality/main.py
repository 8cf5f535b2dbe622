"""§4: WG005's id(x) -> x rewrite when x's class (imported) compares by value."""
# expect: refused: compares by value
from pkg import blocks, registry


def main() -> None:
    a, b = blocks.Block("x"), blocks.Block("x")
    registry.remember(a, 1)
    registry.remember(b, 2)
    print(registry.lookup(a), registry.lookup(b), len(registry.by_id))
