"""Class 7 (values): a debugging helper maps every submodule's qualified name to the module, for the model
the caller passes in, as DeepSpeed maps parameters to names. The model belongs to the caller; the map must
not keep it after the caller lets it go."""
# expect: fixed
# codemod: --runtime import --unsafe-fixes
import gc
from typing import Dict

from torch import nn

module_by_name: Dict[str, nn.Module] = {}


def index(model: nn.Module) -> None:
    for name, module in model.named_modules():
        module_by_name[name or "root"] = module


def remember_first(name: str, module: nn.Module) -> nn.Module:
    return module_by_name.setdefault(name, module)


def describe(name: str) -> str:
    module = module_by_name.get(name)
    return "unknown" if module is None else type(module).__name__


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 3), nn.Tanh()))
    index(model)
    print("names:", list(module_by_name))
    print("describe:", [describe(n) for n in ("root", "0", "2.1", "nope")])
    print("setdefault keeps the first:", remember_first("0", model[1]) is model[0])
    print("repr mentions the layers:", "Linear(in_features=2" in repr(module_by_name))
    print("a copy holds them all:", len(module_by_name.copy()), module_by_name.copy()["0"] is model[0])
    print("popitem:", module_by_name.popitem()[0], len(module_by_name))
    other = nn.Linear(5, 5)
    index(other)
    print("after a second model:", list(module_by_name))
    del model
    gc.collect()
    print("[gc] names left once the first model is gone:", sorted(module_by_name))
    print("the second model is still there:", module_by_name["root"] is other)


if __name__ == "__main__":
    main()
