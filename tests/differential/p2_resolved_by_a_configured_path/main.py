"""Uses by every route: a configuration loader finds the map by a `module:attribute` string with
pkgutil.resolve_name, and serialises it when it is a dict."""
# expect: refused: names it in a string
import torch
from torch import nn

import config
from acts.table import remember


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 3), nn.GELU(), nn.Linear(3, 1), nn.Tanh())
    print("remembered", remember(model))
    print("dump", config.dump("table"))
