from torch import nn

LAYER_NAMES = {}


def name_layers(model: nn.Module) -> None:
    for name, module in model.named_modules():
        LAYER_NAMES[module] = name or "model"
