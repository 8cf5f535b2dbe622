"""Class 7 (values), adversarial: `register(name, tensor)` is passed computed tensors (`base * 2`), which
nothing but the registry keeps."""
# expect: refused: passes `base * 2`
# codemod: --runtime import --unsafe-fixes
import gc

import torch

_BUFFERS = {}


def register(name: str, tensor: torch.Tensor) -> None:
    _BUFFERS[name] = tensor


def main() -> None:
    base = torch.ones(3)
    register("base", base)
    register("scaled", base * 2)
    gc.collect()
    print("names", list(_BUFFERS), _BUFFERS["scaled"].tolist())
