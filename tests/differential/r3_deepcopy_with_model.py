"""Class 3: an optimizer-state-like map keyed by parameters, deep-copied together with its model (as
EMA and checkpoint-averaging code does); the copied map must answer for the copied model's parameters
and must not touch the original's."""
# expect: refused: deep-copied together with
import copy

import torch
from torch import nn

momentum = {}


def init_state(model: nn.Module) -> None:
    for p in model.parameters():
        momentum[p] = torch.zeros_like(p)


def step(model: nn.Module, table) -> None:
    with torch.no_grad():
        for p in model.parameters():
            table[p].add_(1.0)
            p.add_(table[p])


def main() -> None:
    torch.manual_seed(0)
    model = nn.Linear(2, 2)
    init_state(model)
    shadow, shadow_momentum = copy.deepcopy((model, momentum))
    print("copied entries:", len(shadow_momentum))
    print("keyed by the copy's parameters:", all(p in shadow_momentum for p in shadow.parameters()))
    print("not by the original's:", any(p in shadow_momentum for p in model.parameters()))
    step(shadow, shadow_momentum)
    step(shadow, shadow_momentum)
    print("shadow momentum:", [round(float(v.sum()), 2) for v in shadow_momentum.values()])
    print("original momentum untouched:", [round(float(v.sum()), 2) for v in momentum.values()])
    print("original weights untouched:", round(float(model.weight.sum()), 4))
    print("shadow weights moved:", round(float(shadow.weight.sum()), 4))
