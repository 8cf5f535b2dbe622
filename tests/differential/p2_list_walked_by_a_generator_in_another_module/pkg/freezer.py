"""Freezes registered layers lazily, one per step."""
from pkg import registry


def pending_layers():
    for layer in registry.LAYERS:
        yield layer


def freeze_step(gen) -> int:
    layer = next(gen, None)
    if layer is None:
        return -1
    for p in layer.parameters():
        p.requires_grad_(False)
    return layer.in_features
