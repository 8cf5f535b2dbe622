"""Class 3: the key class gets __eq__/__hash__ from a mixin defined in the module (layers are keyed by
their (kind, index) spec, so a re-created layer maps to the same entry)."""
# expect: fixed
from torch import nn


class SpecKeyed:
    spec: tuple

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SpecKeyed) and self.spec == other.spec

    def __hash__(self) -> int:
        return hash(self.spec)


class Expert(SpecKeyed, nn.Module):
    def __init__(self, index: int) -> None:
        super().__init__()
        self.spec = ("expert", index)
        self.ff = nn.Linear(2, 2)


load = {}


def route(expert: Expert, tokens: int) -> None:
    load[expert] = load.get(expert, 0) + tokens


def main() -> None:
    experts = [Expert(i) for i in range(3)]
    for i, e in enumerate(experts):
        route(e, 10 * (i + 1))
    route(Expert(0), 5)  # a re-created expert 0 adds to the same entry
    print("entries:", len(load))
    print("load:", sorted(load.values()))
    print("lookup by spec:", load[Expert(2)])
