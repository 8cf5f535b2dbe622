"""Class 2: a getter hands the map out; callers type-check it and serialize it."""
# expect: refused: type is checked | isinstance | serialized | returned | escapes
import json
import pickle

from torch import nn

_param_owner = {}


def record(model: nn.Module) -> None:
    for name, p in model.named_parameters():
        _param_owner[p] = name.rsplit(".", 1)[0]


def get_param_owner():
    return _param_owner


def export(table) -> str:
    if isinstance(table, dict):
        return json.dumps(sorted(table.values()))
    return json.dumps(None)


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    record(model)
    print("is a dict:", isinstance(get_param_owner(), dict))
    print("exported:", export(get_param_owner()))
    print("pickle round trip:", len(pickle.loads(pickle.dumps(get_param_owner()))))
    print("owner of 1.bias:", get_param_owner()[model[1].bias])
