"""Uses by every route: the package re-exports the map inside a try block, and this file imports it from
the package and hands it to code that checks its type."""
# expect: refused: which the rewrite may change
import json

import torch
from torch import nn

from acts import ACTIVATIONS, remember


def report(mapping) -> str:
    if type(mapping) is dict:
        return "plain dict of %d" % len(mapping)
    return "some other mapping of %d" % len(mapping)


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 3), nn.Tanh())
    print("remembered", remember(model))
    print("report", report(ACTIVATIONS))
    print("names", json.dumps(sorted(ACTIVATIONS.values())))
    print("isinstance dict", isinstance(ACTIVATIONS, dict))
