from torch import nn

SEEN = {}


def trace(model: nn.Module) -> None:
    for name, module in model.named_modules():
        SEEN[module] = name or "root"
