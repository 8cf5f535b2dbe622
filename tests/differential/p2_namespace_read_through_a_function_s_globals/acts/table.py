"""Which activation module each layer of a model was built with."""
from torch import nn

ACTIVATIONS = {}


def remember(model: nn.Module) -> int:
    count = 0
    for child in model.modules():
        if isinstance(child, (nn.ReLU, nn.GELU, nn.Tanh)):
            ACTIVATIONS[child] = type(child).__name__
            count += 1
    return count


def kinds() -> list:
    return sorted(ACTIVATIONS.values())
