"""Uses by every route: a legacy module in latin-1 (with its coding cookie, so Python imports it) reads
the map and checks that it is a dict."""
# expect: refused: which the rewrite may change
import torch
from torch import nn

import legacy_report
from acts.table import remember


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1), nn.GELU())
    print("remembered", remember(model))
    print("report", legacy_report.report())
