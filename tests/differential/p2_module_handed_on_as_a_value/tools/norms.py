from torch import nn

NORMS = {}


def record(model: nn.Module) -> None:
    for parameter in model.parameters():
        NORMS[parameter] = round(parameter.detach().norm().item(), 4)
