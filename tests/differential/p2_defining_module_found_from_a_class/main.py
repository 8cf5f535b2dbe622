"""Uses by every route: an invalidation finds the module that defines each layer's class through
``sys.modules[type(layer).__module__]``, any module at all, and clears its dict globals. After a rewrite the
packed weights would survive a change of the weights, and the layer would compute with stale ones."""
# expect: refused: finds objects by name
import torch

from tools import fused, invalidate


def main() -> None:
    torch.manual_seed(0)
    layer = fused.Fused()
    x = torch.ones(1, 2)
    print("before", [round(v, 4) for v in layer(x).tolist()[0]])
    with torch.no_grad():
        layer.inner.weight.mul_(2)
    print("invalidated", invalidate.invalidate(layer))
    print("after", [round(v, 4) for v in layer(x).tolist()[0]])
