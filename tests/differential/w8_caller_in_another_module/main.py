"""Class 7 (values), adversarial, across modules: this module registers an activation built in the call,
which only the registry keeps; the registry's module cannot see it."""
# expect: refused: calls `register`, which fills it | passes `nn.GELU()` to `register`, which keeps it
# codemod: --runtime import --unsafe-fixes
import gc

from torch import nn

from pkg.registry import lookup, register


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2))
    register("stem", model[0])
    register("act", nn.GELU())
    gc.collect()
    print("act", lookup("act"), lookup("stem") is model[0])
