"""Pruning: record every layer of a Sequential, then drop/replace layers in place."""
# expect: refused: reads the whole container after that
import gc

import torch
import torch.nn as nn

PRUNE_LOG = []


def record_layers(model: nn.Sequential) -> None:
    for layer in model:
        PRUNE_LOG.append(layer)


def prune(model: nn.Sequential) -> None:
    del model[0]
    model[0] = nn.Identity()


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 3), nn.Sigmoid())
    record_layers(model)
    print("logged before prune:", len(PRUNE_LOG))
    prune(model)
    gc.collect()
    print("model now:", [type(m).__name__ for m in model])
    print("[gc] logged after prune:", len(PRUNE_LOG))
    kinds = [type(m).__name__ for m in PRUNE_LOG]
    print("[gc] logged Linear layers:", kinds.count("Linear"))
    print("[gc] logged ReLU layers:", kinds.count("ReLU"))
    restored = nn.Sequential(*PRUNE_LOG)
    print("undo restores:", [type(m).__name__ for m in restored])
