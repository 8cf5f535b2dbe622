"""An ``id()``-keyed map whose local key is also read as a number (``key == id(weight)``): unwrapping
``id()`` at the binding would compare a tensor with an int, so the map keeps its ``id()`` keys and the fix
is refused, with the key use named."""
# expect: refused: the key `key`
import torch
from torch import nn

_SHOWN = {}


def shown(weight: torch.Tensor) -> bool:
    key = id(weight)
    _SHOWN[key] = [weight.shape[0], weight.dtype]
    return key == id(weight)


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2))
    print([shown(m.weight) for m in model], sorted(v[0] for v in _SHOWN.values()))


if __name__ == "__main__":
    main()
