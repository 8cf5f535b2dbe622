import sys

from torch import nn

BASE_LR = 0.1
LR_SCALE = {}


def configure(**settings) -> None:
    this = sys.modules[__name__]
    for name, value in settings.items():
        current = getattr(this, name)
        if isinstance(current, dict):
            current.update(value)
        else:
            setattr(this, name, value)


def decay(model: nn.Module, factor: float) -> None:
    for depth, layer in enumerate(m for m in model.modules() if isinstance(m, nn.Linear)):
        LR_SCALE[layer] = factor ** depth


def rates(model: nn.Module) -> list:
    return [round(BASE_LR * LR_SCALE.get(m, 1.0), 6) for m in model.modules() if isinstance(m, nn.Linear)]
