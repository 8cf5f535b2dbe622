"""Class 5: clones and norms taken while gradients flow (their graph reaches the parameter). The value keeps its key alive, so a weak-key map would never drop
the entry: the fix must be refused."""
# expect: refused: refers to its own key | keeps its key alive | own key
import torch
from torch import nn

cache = {}


def fill(model: nn.Module) -> None:
    for p in model.parameters():
        cache[p] = (p.clone(), p.norm())


def main() -> None:
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    fill(model)
    print("entries:", len(cache))
    print("requires grad:", [v[0].requires_grad for v in cache.values()])
    print("clone has a graph:", all(v[0].grad_fn is not None for v in cache.values()))
