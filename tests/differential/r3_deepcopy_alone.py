"""Class 3: a map deep-copied on its own (a "snapshot" of per-module settings) whose copied keys are then
mutated. In the original the snapshot is keyed by new modules and the caller's live model stays as it
was; a weak map's deep copy would hold fresh keys that nothing else refers to (an empty snapshot), or,
keeping the keys, mutate the live model: the fix must be refused."""
# expect: refused: deep-copied | deepcopy
import copy

import torch
from torch import nn

init_scale = {}


def remember(model: nn.Module) -> None:
    for m in model.modules():
        if isinstance(m, nn.Linear):
            init_scale[m] = 0.5


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
    remember(model)
    before = round(float(sum(p.sum() for p in model.parameters())), 4)
    snapshot = copy.deepcopy(init_scale)
    print("entries in the snapshot:", len(snapshot))
    with torch.no_grad():
        for m, scale in snapshot.items():
            m.weight.mul_(scale)
            m.bias.zero_()
    after = round(float(sum(p.sum() for p in model.parameters())), 4)
    print("live model unchanged:", before == after)
    print("snapshot zeroed its own biases:", [float(m.bias.abs().sum()) for m in snapshot])
    print("live map unchanged:", len(init_scale), sorted(init_scale.values()))
    print("snapshot keys are not the live modules:", not any(m is k for k in snapshot for m in model.modules()))
