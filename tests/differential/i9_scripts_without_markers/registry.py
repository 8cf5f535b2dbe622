"""Layer names, kept by a module that its sibling scripts import by its bare name."""
from torch import nn

layer_names = {}


def record(model: nn.Module) -> None:
    for name, module in model.named_modules():
        layer_names[module] = name or "root"
