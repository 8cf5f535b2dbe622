"""Records the linear layers a model's probe is attached to."""
from torch import nn

PROBED = []
THRESHOLD = 0.5


def attach(model: nn.Module) -> int:
    for module in model.modules():
        if isinstance(module, nn.Linear):
            PROBED.append(module)
    return len(PROBED)


def saturated(x) -> int:
    return int((x.abs() > THRESHOLD).sum())
