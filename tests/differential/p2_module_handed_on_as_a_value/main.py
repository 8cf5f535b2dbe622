"""Uses by every route: ``main`` hands the module that holds the map to a helper, which copies every dict
global of each module it is given. The index sees no use of the map there, only the module itself passed
as a value: after a rewrite the map is no dict to the helper, and the snapshot would be empty."""
# expect: refused: itself as a value
import torch
from torch import nn

from tools import norms, rollback


def main() -> None:
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    norms.record(model)
    taken = rollback.snapshot(norms)
    print("snapshot", {module: sorted(values.get("NORMS", {}).values()) for module, values in taken.items()})
