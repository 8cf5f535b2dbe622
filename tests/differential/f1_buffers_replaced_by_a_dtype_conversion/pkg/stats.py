"""A registry of a model's buffers by name, filled by a function its caller hands the model to."""
from typing import Dict

import torch
from torch import nn

BUFFER_NAMES: Dict[torch.Tensor, str] = {}


def record_buffers(model: nn.Module) -> None:
    for name, buffer in model.named_buffers():
        BUFFER_NAMES[buffer] = name


def recorded() -> list:
    return sorted(BUFFER_NAMES.values())
