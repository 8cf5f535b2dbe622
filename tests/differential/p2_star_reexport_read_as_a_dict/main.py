"""Uses by every route: the package re-exports its core module with a star import, and ``main`` imports
the map from the package and logs it through a flattener that recurses into ``isinstance(v, dict)``
values. The use is under the re-exported name: after a rewrite the map is no dict to the flattener, and
the log loses its entries."""
# expect: refused: which the rewrite may change
import torch
from torch import nn

from calib import ACT_MAX, observe


def flatten(record: dict, prefix: str = "") -> list:
    rows = []
    for key, value in record.items():
        name = f"{prefix}{type(key).__name__}" if not isinstance(key, str) else f"{prefix}{key}"
        rows.extend(flatten(value, name + ".") if isinstance(value, dict) else [(name, value)])
    return rows


def main() -> None:
    torch.manual_seed(0)
    layer = nn.Linear(3, 2)
    observe(layer, torch.ones(1, 3))
    print("log", flatten({"step": 0, "act_max": ACT_MAX}))
