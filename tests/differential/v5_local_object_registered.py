"""Class 5: objects built in the function that registers them, held by a local variable while they are
used, then dropped (a scratch model for a calibration pass). The local keeps them alive, so nothing here
may block the fix; entries go once the locals do."""
# expect: refused: no owner is shown
import gc

import torch
from torch import nn

calibrated = {}


def calibrate(data: torch.Tensor) -> float:
    probe = nn.Linear(data.shape[1], 1)
    calibrated[probe] = "pending"
    for p in probe.parameters():
        calibrated[p] = "param"
    with torch.no_grad():
        scale = float(probe(data).abs().mean())
    calibrated[probe] = round(scale, 4)
    print("while calibrating:", len(calibrated), probe in calibrated, calibrated[probe])
    return scale


def main() -> None:
    torch.manual_seed(0)
    keep = nn.Linear(2, 2)
    calibrated[keep] = "kept"
    scale = calibrate(torch.ones(3, 2))
    print("scale:", round(scale, 4))
    gc.collect()
    print("[gc] entries after calibration:", len(calibrated))
    print("kept:", calibrated[keep], keep in calibrated)
