"""A registry of a model's modules by name, filled by a function its caller hands the model to."""
from typing import Dict

from torch import nn

NAMES: Dict[nn.Module, str] = {}


def record(model: nn.Module) -> None:
    for name, module in model.named_modules():
        NAMES[module] = name or "<root>"


def recorded() -> list:
    return sorted(NAMES.values())
