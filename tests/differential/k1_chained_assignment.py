"""Class 1: one dict under two names (`a = b = {}`): modules go in through one name, string aliases
through the other."""
# expect: refused: weakly referenced | weak-referenceable | weak reference | bound together | alias
from torch import nn

modules_to_names = names_index = {}


def index(model: nn.Module) -> None:
    for name, module in model.named_modules():
        modules_to_names[module] = name
    names_index["<root>"] = model


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
    index(model)
    print("len:", len(modules_to_names), len(names_index))
    print("same object:", modules_to_names is names_index)
    print("root by string:", names_index["<root>"] is model)
    print("first layer:", modules_to_names[model[0]])
    print("string keys:", sorted(k for k in names_index if isinstance(k, str)))
