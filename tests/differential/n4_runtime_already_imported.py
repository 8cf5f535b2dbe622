"""Class 4: a file fixed earlier with `--runtime import` (it imports WeakIdSet from
flake8_weakglobals.runtime) gains a new pinning dict; the vendor-mode fix must leave one import of each
runtime name, not two."""
# expect: fixed
# codemod: --runtime vendor
import gc

from flake8_weakglobals.runtime import WeakIdSet
from torch import nn

seen = WeakIdSet()
layer_names = {}


def visit(model: nn.Module) -> None:
    for name, module in model.named_modules():
        seen.add(module)
        layer_names[module] = name or "root"


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    visit(model)
    print("seen:", len(seen), "names:", sorted(layer_names.values()))
    print("lookup:", layer_names[model[1]], model[1] in seen)
    model[1] = nn.Identity()
    gc.collect()
    print("[gc] names after replacing a layer:", len(layer_names))
    print("[gc] seen after replacing a layer (the names kept it alive):", len(seen))
