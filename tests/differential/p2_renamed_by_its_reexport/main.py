"""Class 2 (uses by every route): a table is re-exported under a new name by its package, and under a
third by another, and that module hands it to a JSON helper that branches on `isinstance(value, dict)`.
The module that reads it never spells the table's own name, so its use was not looked at."""
# expect: refused: uses it as
from torch import nn

import tracing
from reports import as_json, layer_names


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    tracing.trace(model)
    print("traced:", len(layer_names))
    print("as json:", as_json(layer_names))
