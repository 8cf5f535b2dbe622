"""Checkpoint registry: a by-name weak index plus a strong model->path table."""
# expect: refused: nothing is shown to keep it
import gc
import weakref

import torch.nn as nn

_BY_NAME = weakref.WeakValueDictionary()
CHECKPOINT_PATHS = {}


def register_checkpoint(name: str, path: str) -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
    CHECKPOINT_PATHS[model] = path
    _BY_NAME[name] = model


def lookup(name: str):
    model = _BY_NAME.get(name)
    if model is None:
        return None
    return CHECKPOINT_PATHS.get(model)


def main() -> None:
    for name in ("resnet", "vit", "bert"):
        register_checkpoint(name, f"/ckpt/{name}.pt")
    gc.collect()
    print("[gc] checkpoint table size:", len(CHECKPOINT_PATHS))
    print("resnet ->", lookup("resnet"))
    print("bert ->", lookup("bert"))
