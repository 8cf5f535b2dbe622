"""The parameters frozen for fine-tuning, kept to report them at the end."""
from torch import nn

FROZEN = []


def freeze_embeddings(model: nn.Module) -> None:
    for parameter in model[0].parameters():
        parameter.requires_grad_(False)
        FROZEN.append(parameter)
