"""Class 5: a forward hook keys the map by the layer's output, a tensor the forward builds and nothing else
keeps once it returns (fvcore-style tracing: which module produced this tensor). A weak map would be empty
as soon as the forward returns."""
# expect: refused: an argument of a hook registered with `register_forward_hook`
import torch
from torch import nn

producer = {}


def capture(module: nn.Module, inputs, output: torch.Tensor) -> None:
    producer[output] = type(module).__name__


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    for layer in model:
        layer.register_forward_hook(capture)
    model(torch.ones(1, 2))
    print("captured:", len(producer), sorted(producer.values()))
    print("shapes:", sorted(tuple(t.shape) for t in producer))
