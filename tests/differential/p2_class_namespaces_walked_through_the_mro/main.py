"""Uses by every route: a test helper walks ``type(obj).__mro__`` and empties the dicts in each class's
namespace, which reaches the class-level map by no name. After a rewrite the map is no dict to the helper:
the stale scale survives a change of the weights, and the layer computes with it."""
# expect: refused: finds objects by name
import torch

from tools import isolation
from tools.qlinear import QLinear


def main() -> None:
    torch.manual_seed(0)
    layer = QLinear(3, 2)
    x = torch.ones(1, 3)
    print("before", [round(v, 4) for v in layer(x).tolist()[0]])
    with torch.no_grad():
        layer.weight.mul_(3)
    print("cleared", isolation.reset_class_caches(layer))
    print("after", [round(v, 4) for v in layer(x).tolist()[0]])
