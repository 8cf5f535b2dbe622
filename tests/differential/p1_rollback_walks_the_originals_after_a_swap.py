"""Class 1 (ownership: an owner that lets go, then a walk): a quantization pass swaps each `nn.Linear` of a
model for a fake-quantized copy and records, keyed by the original layer, where it sat. `restore()` walks
the record and puts every original back. Once swapped, the record alone keeps the originals: a weak map
would have dropped them, and the restore would put nothing back."""
# expect: refused: reads the whole container after that
import gc

import torch
from torch import nn

SWAPPED_FROM = {}


class FakeQuantLinear(nn.Linear):
    def __init__(self, original: nn.Linear) -> None:
        super().__init__(original.in_features, original.out_features)
        with torch.no_grad():
            self.weight.copy_(torch.round(original.weight * 8) / 8)
            self.bias.copy_(original.bias)


def quantize(model: nn.Sequential) -> None:
    for index, layer in enumerate(model):
        if isinstance(layer, nn.Linear):
            SWAPPED_FROM[layer] = (model, index)
            model[index] = FakeQuantLinear(layer)


def restore() -> int:
    count = 0
    for original, (parent, index) in SWAPPED_FROM.items():
        parent[index] = original
        count += 1
    return count


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    x = torch.ones(2, 3)
    before = model(x).detach()
    quantize(model)
    gc.collect()
    print("quantized error", round(float((model(x) - before).abs().sum()), 4))
    print("restored layers", restore())
    print("restored error", round(float((model(x) - before).abs().sum()), 4), type(model[0]).__name__)


if __name__ == "__main__":
    main()
