"""The batch norms of a model, and the statistics each had before folding, for the export report."""
from torch import nn

NORMS = {}


def remember(model: nn.Module) -> None:
    for name, module in model.named_modules():
        if isinstance(module, nn.BatchNorm2d):
            NORMS[module] = name
