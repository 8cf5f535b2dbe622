"""Imports (issue 23, section 5): a directory of scripts with neither a `#!` line nor a `__main__` block.
They import each other by their bare names (`from registry import ...`), which works only with the
directory itself on sys.path (`python scripts/main.py`): the vendored copy goes beside them and is imported
by its bare name, not as `<directory>._weakglobals_runtime` (which nothing on sys.path would find)."""
# expect: fixed
# codemod: --runtime vendor
import gc

from torch import nn

from registry import layer_names, record


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    record(model)
    print("names:", [layer_names[m] for m in model.modules()])
    print("lookup:", layer_names[model[1]])
    model[1] = nn.Identity()
    gc.collect()
    print("[gc] names after replacing a layer:", len(layer_names))
