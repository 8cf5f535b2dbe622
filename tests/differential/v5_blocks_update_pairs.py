"""Class 5: values that refer to their own key, filled through update() with pairs (not `m[k] = v`): a
bound forward per child, and each module mapped to itself. The fix must be refused as it is for
`m[k] = k.forward`."""
# expect: refused: refers to its own key | keeps its key alive | own key
import torch
from torch import nn

forwards = {}
canonical = {}


def collect(model: nn.Module) -> None:
    forwards.update([(child, child.forward) for child in model.children()])
    canonical.update((m, m) for m in model.modules())


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    collect(model)
    x = torch.ones(1, 2)
    for forward in forwards.values():
        x = forward(x)
    print("chained through the map:", tuple(x.shape), len(forwards))
    print("canonical is identity:", all(k is v for k, v in canonical.items()), len(canonical))
