"""Class 1 (ownership: the caller that keeps a returned model lets go of its parts): a builder makes a model
on the meta device, names its parameters in a map, and returns it; the caller keeps it and materialises it
with `to_empty()`, which puts new parameters in place of the meta ones. The log walks the map afterwards,
whose meta parameters only the map keeps."""
# expect: refused: reads the whole container after that
import gc

import torch
from torch import nn

PARAM_NAMES = {}


def build() -> nn.Module:
    with torch.device("meta"):
        model = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
    for name, param in model.named_parameters():
        PARAM_NAMES[param] = name
    return model


def log() -> list:
    return sorted(f"{name}@{param.device.type}" for param, name in PARAM_NAMES.items())


def main() -> None:
    model = build()
    print("named", log())
    model.to_empty(device="cpu")
    gc.collect()
    print("named after materialising", log())
    print("kept", sum(p.numel() for p in model.parameters()))


if __name__ == "__main__":
    main()
