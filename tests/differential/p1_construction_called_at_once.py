"""Probes register themselves in a module-level map when they are built, and ``main`` builds each probe
inline and calls it at once: ``Probe("hidden")(h)``. Nothing keeps the probe after the call, so the map is
its only owner when the probes' readings are listed later. A weak map would list none: a construction
called at once is no owner."""
# expect: refused: is not bound, stored or returned where it is built
import gc

import torch
from torch import nn

PROBES = {}


class Probe(nn.Module):
    def __init__(self, tag: str) -> None:
        super().__init__()
        PROBES[self] = tag

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        self.reading = round(h.abs().mean().item(), 5)
        return h


def main() -> None:
    torch.manual_seed(0)
    layer = nn.Linear(4, 3)
    h = Probe("input")(torch.ones(1, 4))
    h = Probe("hidden")(layer(h))
    print("output", [round(v, 5) for v in h.tolist()[0]])
    gc.collect()
    print("probes", len(PROBES), sorted((tag, probe.reading) for probe, tag in PROBES.items()))


if __name__ == "__main__":
    main()
