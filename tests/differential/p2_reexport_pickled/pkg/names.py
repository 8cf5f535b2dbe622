from torch import nn

NAMES = {}


def record(model: nn.Module) -> None:
    for name, module in model.named_modules():
        NAMES[module] = name or "root"
