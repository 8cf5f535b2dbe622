"""Which parameters are exempt from weight decay."""
from torch import nn

__all__ = ["NO_DECAY", "DECAY_RATE", "mark_no_decay"]

NO_DECAY = set()
DECAY_RATE = 0.01


def mark_no_decay(model: nn.Module) -> int:
    for module in model.modules():
        if isinstance(module, (nn.LayerNorm, nn.Embedding)):
            for param in module.parameters(recurse=False):
                NO_DECAY.add(param)
        elif isinstance(module, nn.Linear) and module.bias is not None:
            NO_DECAY.add(module.bias)
    return len(NO_DECAY)
