"""Uses by every route: an exporter reads the map through `operator.attrgetter("table.ACTIVATIONS")`
applied to the package, then keeps a copy only if it is a dict."""
# expect: refused: names it in a string
import torch
from torch import nn

import exporter
from acts.table import remember


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1), nn.Tanh())
    print("remembered", remember(model))
    exported = exporter.export()
    for path, value in exported.items():
        print(path, None if value is None else sorted(value.values()))
