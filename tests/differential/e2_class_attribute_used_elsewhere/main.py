"""Class 2, across modules: another module checks that a class-level map is a dict. Other modules' uses
are checked for class attributes and instances' attributes too, not only for module globals."""
# expect: refused: `e2_class_attribute_used_elsewhere/main.py` line 11 uses it as `isinstance(Registry.cache, dict)`
from registry import Registry
from torch import nn


def main() -> None:
    layer = nn.ReLU()
    Registry.add(layer)
    print("is a dict:", isinstance(Registry.cache, dict), len(Registry.cache))
