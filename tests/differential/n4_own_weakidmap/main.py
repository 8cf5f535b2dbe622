"""Class 4: a module that imports its own, unrelated `WeakIdMap` from a sibling module and also has a
pinning dict keyed by modules."""
# expect: refused: its own `WeakIdMap` | already | WeakIdMap
from mywk import WeakIdMap
from torch import nn

by_name = WeakIdMap()
module_names = {}


def index(model: nn.Module) -> None:
    for name, module in model.named_modules():
        module_names[module] = name
        by_name.put(name or "root", module)


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2))
    index(model)
    print("names:", sorted(module_names.values()))
    print("by name:", type(by_name.get("0")).__name__, len(by_name))
    print("lookup:", module_names[model[0]])
