"""Ownership: a forward hook made by a closure factory appends each output it sees to a module-level list,
the only owner of those tensors; the list is read after the forward pass."""
# expect: refused: no owner is shown | an argument of a hook registered
import torch
from torch import nn

_OUTPUTS = []


def recorder(tag: str):
    def hook(module: nn.Module, inputs: tuple, output: torch.Tensor) -> None:
        _OUTPUTS.append(output)

    return hook


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 1))
    for index, block in enumerate(model):
        block.register_forward_hook(recorder(str(index)))
    with torch.no_grad():
        model(torch.ones(2, 3))
    print("outputs kept", len(_OUTPUTS), [tuple(t.shape) for t in _OUTPUTS])
