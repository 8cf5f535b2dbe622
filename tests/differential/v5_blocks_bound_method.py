"""Class 5: the forward of each submodule kept as a bound method (it holds the module): the value keeps
its key alive, so the fix must be refused."""
# expect: refused: refers to its own key | keeps its key alive | own key
import torch
from torch import nn

forwards = {}


def collect(model: nn.Module) -> None:
    for module in model.children():
        forwards[module] = module.forward


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    collect(model)
    x = torch.ones(1, 2)
    for module, forward in forwards.items():
        x = forward(x)
    print("entries:", len(forwards), "shape:", tuple(x.shape))
    print("bound to the key:", all(f.__self__ is m for m, f in forwards.items()))
