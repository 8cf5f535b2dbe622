"""Uses: the registry's clear is handed to a hook list run at the end of a phase."""
# expect: refused: handed on as a value
import gc

import torch
from torch import nn

SEEN = set()
AT_PHASE_END = []


def see(module: nn.Module) -> None:
    SEEN.add(module)


AT_PHASE_END.append(SEEN.clear)
MODEL = nn.Sequential(nn.Linear(2, 2), nn.ReLU())


def main() -> None:
    for m in MODEL:
        see(m)
    print("seen:", len(SEEN))
    hook = AT_PHASE_END[0]
    print("hook owner type:", type(hook.__self__).__name__)
    for h in AT_PHASE_END:
        h()
    gc.collect()
    print("[gc] after phase:", len(SEEN))
