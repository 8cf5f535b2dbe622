"""A registry of a model's parameters by name, filled by a function its caller hands the model to."""
from typing import Dict

from torch import nn

PARAMETER_NAMES: Dict[nn.Parameter, str] = {}


def record_parameters(model: nn.Module) -> None:
    for name, parameter in model.named_parameters():
        PARAMETER_NAMES[parameter] = name


def recorded() -> list:
    return sorted(PARAMETER_NAMES.values())
