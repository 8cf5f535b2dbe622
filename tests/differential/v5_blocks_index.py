"""Class 5: the first row of each parameter (indexing makes a view). The value keeps its key alive, so a weak-key map would never drop
the entry: the fix must be refused."""
# expect: refused: refers to its own key | keeps its key alive | own key
import torch
from torch import nn

cache = {}


def fill(model: nn.Module) -> None:
    for p in model.parameters():
        cache[p] = p[0]


def main() -> None:
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    fill(model)
    print("entries:", len(cache))
    print("first rows:", sorted(tuple(v.shape) for v in cache.values()))
    print("base is the key:", all(v._base is k for k, v in cache.items()))
