"""Ownership: activations built by a factory classmethod at import and registered in a module -> name map,
which is then their only owner; later code finds them again by walking the map. A weak map would lose
every entry at once."""
# expect: refused: no owner is shown
from torch import nn

_NAMES = {}


def _remember(module: nn.Module, name: str) -> None:
    _NAMES[module] = name


class Activations:
    @classmethod
    def make(cls, name: str) -> nn.Module:
        module = {"relu": nn.ReLU, "gelu": nn.GELU, "tanh": nn.Tanh}[name]()
        _remember(module, name)
        return module


for _name in ("relu", "gelu", "tanh"):
    Activations.make(_name)


def by_name(name: str) -> nn.Module:
    return next(module for module, registered in _NAMES.items() if registered == name)


def main() -> None:
    print("registered", sorted(_NAMES.values()))
    print("gelu is", type(by_name("gelu")).__name__)
