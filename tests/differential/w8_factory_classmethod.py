"""Class 7 (values), adversarial: experts built through a class-method factory (`cls(name)`) register
themselves, and the factory's results are dropped: the registry is their only owner."""
# expect: refused: builds one that nothing else keeps
# codemod: --runtime import --unsafe-fixes
import gc

from torch import nn

EXPERTS = {}


class Expert(nn.Module):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        EXPERTS[name] = self

    @classmethod
    def create(cls, name: str) -> "Expert":
        return cls(name)


def main() -> None:
    for n in ["e0", "e1"]:
        Expert.create(n)
    gc.collect()
    print("experts", sorted(EXPERTS), EXPERTS["e1"].name)
