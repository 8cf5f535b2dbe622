"""Class 2: the map reaches a helper as a default argument value, and the helper serializes whatever
table it gets."""
# expect: refused: serialized | pickle | default | alias | cannot follow
import pickle

from torch import nn

param_names = {}


def index(model: nn.Module) -> None:
    for name, p in model.named_parameters():
        param_names[p] = name


def export(table=param_names) -> bytes:
    return pickle.dumps(sorted(table.values())) + pickle.dumps(len(table)) + pickle.dumps(table)


def main() -> None:
    model = nn.Linear(2, 2)
    index(model)
    blob = export()
    print("exported bytes > 0:", len(blob) > 0)
    print("names:", sorted(param_names.values()))
