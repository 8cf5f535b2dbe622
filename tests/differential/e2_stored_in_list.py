"""Class 2: the map is stored in a list of state tables, and the whole list is pickled for a
checkpoint."""
# expect: refused: serialized | pickle | stored | list | escapes
import pickle

from torch import nn

grad_scale = {}
_state_tables = [grad_scale]


def register(p: nn.Parameter) -> None:
    grad_scale[p] = 1.0 / p.numel()


def checkpoint() -> bytes:
    return pickle.dumps(_state_tables)


def main() -> None:
    layer = nn.Linear(4, 2)
    for p in layer.parameters():
        register(p)
    tables = pickle.loads(checkpoint())
    print("tables:", len(tables), "first has:", len(tables[0]))
    print("scales:", sorted(round(v, 4) for v in tables[0].values()))
    print("live:", round(grad_scale[layer.bias], 4))
