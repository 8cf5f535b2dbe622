"""Class 1 (ownership: callers, by every route, across modules): a config names the hook by its import
path, and a small `instantiate` resolves it with `importlib` and calls it with layers it builds. No
call names `observe`; the list of observed layers is their only owner."""
# expect: refused: names `observe`, which fills it, in a string | it spells `_OBSERVED` in some case
import gc
import importlib

from torch import nn

from pkg import hooks

CONFIG = {"on_build": "pkg.hooks.observe"}


def instantiate(path: str):
    module_name, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module_name), name)


def main() -> None:
    on_build = instantiate(CONFIG["on_build"])
    on_build(nn.Linear(2, 2))
    on_build(nn.Dropout(0.1))
    gc.collect()
    print("observed:", hooks.observed())
