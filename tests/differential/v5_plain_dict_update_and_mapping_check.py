"""Class 5: a plain dict updated from the map, and a Mapping check (the runtime is a Mapping): neither
may block the fix."""
# expect: fixed
import collections.abc
import gc

from torch import nn

module_names = {}


def index(model: nn.Module) -> None:
    for name, module in model.named_modules():
        module_names[module] = name or "root"


def export() -> dict:
    out = {}
    out.update(module_names)
    return out


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    index(model)
    print("is a Mapping:", isinstance(module_names, collections.abc.Mapping))
    print("is a MutableMapping:", isinstance(module_names, collections.abc.MutableMapping))
    exported = export()
    print("exported:", type(exported).__name__, sorted(exported.values()))
    print("exported lookups:", [exported[m] for m in model])
    del exported
    model[1] = nn.Tanh()
    gc.collect()
    print("[gc] names after replacing the ReLU:", len(module_names))
