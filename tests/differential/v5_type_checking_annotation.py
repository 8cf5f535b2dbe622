"""Class 5: the container's annotation names a typing alias imported only for type checkers."""
# expect: fixed
from __future__ import annotations

import gc
from typing import TYPE_CHECKING

from torch import nn

if TYPE_CHECKING:
    from typing import Dict

module_names: Dict[nn.Module, str] = {}


def index(model: nn.Module) -> None:
    for name, module in model.named_modules():
        module_names[module] = name


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    index(model)
    print("names:", list(module_names.values()))
    model[0] = nn.Identity()
    gc.collect()
    print("[gc] after replacing a layer:", len(module_names))
