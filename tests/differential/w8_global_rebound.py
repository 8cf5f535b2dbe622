"""Class 7 (values), adversarial: each published model goes into a global and into a registry by version;
the global keeps only the latest, so the registry is the only owner of the others."""
# expect: refused: keeps only its latest object
# codemod: --runtime import --unsafe-fixes
import gc
from typing import Optional

import torch
from torch import nn

VERSIONS = {}
latest: Optional[nn.Module] = None


def publish(version: str, model: nn.Module) -> None:
    global latest
    latest = model
    VERSIONS[version] = latest


def main() -> None:
    for n in range(3):
        torch.manual_seed(n)
        publish(f"v{n}", nn.Linear(2, 2))
    gc.collect()
    print("versions", list(VERSIONS), tuple(VERSIONS["v0"](torch.ones(1, 2)).shape))
