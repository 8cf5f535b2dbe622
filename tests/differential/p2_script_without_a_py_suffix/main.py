"""Uses by every route: a script without the ``.py`` suffix (``bin/export-features``, a python shebang)
imports the module and rebuilds only ``type(obj) is dict`` containers. The index must read such scripts:
after a rewrite the map is no dict to the exporter, and its tensors are exported in their old dtype."""
# expect: refused: which the rewrite may change
import runpy
from pathlib import Path

import torch
from torch import nn

from tools import capture


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 2))
    capture.attach(model)
    model(torch.ones(1, 3))
    script = runpy.run_path(str(Path(__file__).parent / "bin" / "export-features"), run_name="export")
    exported = script["export"]()["features"]
    print("exported", type(exported).__name__, [value.dtype for value in exported.values()])
