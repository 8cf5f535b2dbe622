"""Class 2, across modules: a star import binds `names`, and this module checks it is a dict."""
# expect: refused: `e2_star_import_uses/main.py` line 10 uses it as `isinstance(names, dict)`
from registry import *
from torch import nn


def main() -> None:
    model = nn.Sequential(nn.Linear(1, 1))
    register(model)
    print("is a dict:", isinstance(names, dict), sorted(names.values()))
