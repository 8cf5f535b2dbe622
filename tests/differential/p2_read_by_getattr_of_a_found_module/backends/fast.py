from torch import nn

PLANS = {}


def plan(layer: nn.Linear) -> int:
    if layer not in PLANS:
        PLANS[layer] = layer.in_features * layer.out_features
    return PLANS[layer]
