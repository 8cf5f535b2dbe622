"""Class 7 (values): every attention block registers itself by its prefix in `__init__`, and a helper looks
blocks up by name. A model whose blocks are all replaced must not stay resident through the registry: the
fix is a WeakValueMap, and everything else the program sees must stay the same."""
# expect: fixed
# codemod: --runtime import --unsafe-fixes
import gc

import torch
from torch import nn

_BLOCKS = {}


class Block(nn.Module):
    def __init__(self, prefix: str) -> None:
        super().__init__()
        self.prefix = prefix
        self.proj = nn.Linear(4, 4)
        _BLOCKS[prefix] = self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(x)


def block(prefix: str) -> nn.Module:
    return _BLOCKS[prefix]


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(*(Block(f"layers.{i}") for i in range(4)))
    print("registered:", list(_BLOCKS), len(_BLOCKS))
    print("lookup is the block:", block("layers.2") is model[2], "layers.9" in _BLOCKS, _BLOCKS.get("layers.9", "absent"))
    try:
        block("layers.9")
    except KeyError as error:
        print("missing:", repr(error))
    print("values are the blocks:", [b is m for b, m in zip(_BLOCKS.values(), model)])
    print("items:", [(k, type(v).__name__) for k, v in _BLOCKS.items()])
    print("equal to a dict of them:", _BLOCKS == dict(zip([f"layers.{i}" for i in range(4)], model)))
    print("union keys:", sorted((_BLOCKS | {"extra": 1}).keys()))
    print("output:", round(model(torch.ones(1, 4)).sum().item(), 4))
    _BLOCKS.pop("layers.0")
    print("after pop:", list(_BLOCKS), len(_BLOCKS))
    replacement = Block("layers.1")  # the new block takes the old one's name, and its place in the order
    model[1] = replacement
    print("replaced:", list(_BLOCKS), block("layers.1") is replacement)
    del model
    gc.collect()
    print("[gc] blocks after the model is gone:", len(_BLOCKS))
    print("the kept block:", block("layers.1") is replacement)


if __name__ == "__main__":
    main()
