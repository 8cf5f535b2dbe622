"""Every layer built by the factory is remembered here."""
import torch

LAYERS = []


def build(width: int) -> torch.nn.Linear:
    layer = torch.nn.Linear(width, width)
    LAYERS.append(layer)
    return layer
