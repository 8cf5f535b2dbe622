"""The parameters that skip weight decay, collected once from the model."""
from torch import nn

NO_DECAY = set()


def collect(model: nn.Module) -> None:
    for module in model.modules():
        if isinstance(module, nn.LayerNorm):
            NO_DECAY.update(module.parameters())
