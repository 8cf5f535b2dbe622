import torch
from torch import nn

FEATURES = {}


def keep(module: nn.Module, inputs, output: torch.Tensor) -> None:
    FEATURES[module] = output.detach()


def attach(model: nn.Module) -> None:
    for module in model.modules():
        if isinstance(module, nn.Linear):
            module.register_forward_hook(keep)
