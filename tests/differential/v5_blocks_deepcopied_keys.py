"""§4 of the fix-safety issue: replicas made with copy.deepcopy(template) and kept in a map that also holds
the caller's models. The copies have no owner but the map: a weak map would drop them at once."""
# expect: refused: copy
import copy
import gc

import torch
from torch import nn

replicas = {}


def track(model: nn.Module, name: str) -> None:
    replicas[model] = name


def replicate(model: nn.Module, name: str) -> None:
    replicas[copy.deepcopy(model)] = name


def main() -> None:
    torch.manual_seed(0)
    base = nn.Linear(2, 2)
    track(base, "base")
    replicate(base, "replica-1")
    replicate(base, "replica-2")
    gc.collect()
    print(sorted(replicas.values()))
