"""Class 4 (the replaced type's contract), across modules: the EMA weights are swapped in for evaluation
with ``torch.utils.swap_tensors``, which raises for a tensor that has a weak reference. A map that held the
parameters weakly would make every swap fail, so the fix is refused where any module of the project swaps."""
# expect: refused: line 25 calls `torch.utils.swap_tensors`
import torch
from torch import nn

import ema


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    ema.track(model)
    for _ in range(3):
        optimizer.zero_grad()
        model(torch.randn(8, 3)).pow(2).mean().backward()
        optimizer.step()
        ema.update(model, 0.9)
    x = torch.ones(1, 3)
    print("live", round(model(x).item(), 5))
    with torch.no_grad():
        for p in model.parameters():
            torch.utils.swap_tensors(p, ema.SHADOW[p])
    print("ema", round(model(x).item(), 5))
