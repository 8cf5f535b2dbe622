"""Class 3 (the replacement observable): an `lru_cache` over layers is called from a function another
module hands to `torch.compile`. Dynamo calls lru_cache's wrapper as it is, so the estimate runs once per
layer; the weak cache, traced through its Python code, stores nothing there and runs it every step."""
# expect: refused: and the runtime lets a compiler trace
# codemod: --runtime import --unsafe-fixes
import torch
from torch import nn

import normalised
import spectral


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    for _ in range(3):
        out = normalised.compiled(model, torch.ones(1, 3))
    print("out:", [round(v, 4) for v in out.sum(0).tolist()])
    print("estimates run:", len(spectral.RUNS))
