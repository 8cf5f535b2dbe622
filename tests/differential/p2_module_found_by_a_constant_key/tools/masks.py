from torch import nn

PRUNED = set()


def prune(model: nn.Module) -> None:
    for parameter in model.parameters():
        PRUNED.add(parameter)
