"""Class 5: maps filled with update() from lists of pairs, then used through the whole mapping API."""
# expect: fixed
import gc

from torch import nn

param_names = {}
module_kinds = {}


def index(model: nn.Module) -> None:
    param_names.update([(p, n) for n, p in model.named_parameters()])
    for name, module in model.named_modules():
        module_kinds.update([(module, type(module).__name__)])


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 3), nn.LayerNorm(3), nn.Linear(3, 1))
    index(model)
    print("params:", list(param_names.values()))
    print("kinds:", list(module_kinds.values()))
    print("get:", param_names.get(model[1].weight), param_names.get(nn.Parameter(model[1].weight.detach()), "?"))
    print("setdefault existing:", module_kinds.setdefault(model[0], "X"))
    print("setdefault new:", module_kinds.setdefault(model[2].weight, "Parameter"), len(module_kinds))
    print("pop:", param_names.pop(model[2].bias), param_names.pop(model[2].bias, "gone"))
    print("in:", model[2].weight in param_names, model[2].bias in param_names)
    del module_kinds[model[1]]
    print("after del:", sorted(module_kinds.values()))
    try:
        del module_kinds[model[1]]
    except KeyError:
        print("second del: KeyError")
    try:
        param_names[model[2].bias]
    except KeyError:
        print("missing read: KeyError")
    print("keys match:", [param_names[k] for k in param_names.keys()] == list(param_names.values()))
    print("items:", [(type(k).__name__, v) for k, v in param_names.items()])
    print("bool:", bool(param_names), "len:", len(param_names))
    model[2] = nn.Identity()
    gc.collect()
    print("[gc] kinds after replacing the last layer:", len(module_kinds))
    module_kinds.clear()
    print("cleared:", len(module_kinds), bool(module_kinds))
