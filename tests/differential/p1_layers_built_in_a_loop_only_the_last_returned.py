"""Layer bookkeeping: every layer built by the stack builder is tracked for later freezing."""
# expect: refused: only the last object it held
import gc

import torch
import torch.nn as nn

TRACKED_LAYERS = []


def track(layer: nn.Module) -> nn.Module:
    TRACKED_LAYERS.append(layer)
    return layer


def build_stack(depth: int, width: int) -> nn.Module:
    """Builds the layers; only the last one is returned as the 'output head'."""
    layer = None
    for _ in range(depth):
        layer = nn.Linear(width, width)
        track(layer)
    return layer


def freeze_all() -> int:
    n = 0
    for layer in TRACKED_LAYERS:
        for p in layer.parameters():
            p.requires_grad_(False)
            n += 1
    return n


def main() -> None:
    torch.manual_seed(0)
    head = build_stack(4, 3)
    print("head:", head)
    gc.collect()
    print("[gc] tracked layers:", len(TRACKED_LAYERS))
    print("[gc] frozen parameters:", freeze_all())
    print("head frozen:", not head.weight.requires_grad)
    print("head position in stack:", TRACKED_LAYERS.index(head))
