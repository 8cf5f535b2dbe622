"""Class 2: lookups through unbound dict methods (`dict.get(table, key)`), a style some codebases use
to be robust to dict subclasses that override `get`."""
# expect: refused: dict.get | unbound | plain container | passed
from torch import nn

module_depth = {}


def index(model: nn.Module) -> None:
    for name, m in model.named_modules():
        module_depth[m] = name.count(".") + (1 if name else 0)


def depth(m: nn.Module) -> int:
    return dict.get(module_depth, m, -1)


def main() -> None:
    model = nn.Sequential(nn.Sequential(nn.Linear(2, 2)), nn.ReLU())
    index(model)
    print("depths:", [depth(m) for m in model.modules()])
    print("stranger:", depth(nn.Tanh()))
    print("contains:", dict.__contains__(module_depth, model[1]))
