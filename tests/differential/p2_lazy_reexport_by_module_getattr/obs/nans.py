import torch
from torch import nn

NAN_PARAMS = set()


def scan(model: nn.Module) -> None:
    for parameter in model.parameters():
        if parameter.grad is not None and not torch.isfinite(parameter.grad).all():
            NAN_PARAMS.add(parameter)
