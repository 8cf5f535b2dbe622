"""Class 2 (uses by every route): another module takes `LAYER_NAMES.copy()` and adds a layer it builds
and drops. A dict's copy keeps that layer; a weak map's copy is weak too, and loses the entry. A
method of the runtime's own API was taken as safe wherever it was called."""
# expect: refused: a copy (
import gc

from torch import nn

import export
import names


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    names.name_layers(model)
    exported = export.export_names(model)
    gc.collect()
    print("exported:", sorted(exported.values()))
