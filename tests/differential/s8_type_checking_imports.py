"""§6: TYPE_CHECKING imports of the framework names the annotations use."""
# expect: fixed
from __future__ import annotations

from typing import TYPE_CHECKING, Dict

if TYPE_CHECKING:
    from torch import nn

names: Dict[nn.Module, str] = {}


def extract(model: "nn.Module") -> None:
    for n, m in model.named_modules():
        names[m] = n


def main() -> None:
    import torch.nn as tnn

    model = tnn.Sequential(tnn.Linear(2, 2))
    extract(model)
    print(sorted(names.values()))
