"""Class 3: an nn.Module remembers the input batches it has seen in a WeakKeyDictionary (tensor keys:
WG004), and the module is deep-copied for an EMA shadow. WeakKeyDictionary's deepcopy keeps the keys (the
caller's live batches), so the shadow's table is as full as the live one, and both lose an entry when the
caller drops a batch."""
# expect: fixed
# codemod: --runtime import --unsafe-fixes
import copy
import gc
import weakref

import torch
from torch import nn


class Normalizer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.scale = nn.Parameter(torch.ones(3))
        self._batch_mean = weakref.WeakKeyDictionary()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self._batch_mean[x] = round(float(x.mean()), 4)
        return (x - x.mean()) * self.scale

    def seen(self) -> list:
        return sorted(self._batch_mean.values())


def main() -> None:
    torch.manual_seed(0)
    live = Normalizer()
    batches = [torch.randn(2, 3) for _ in range(3)]
    for batch in batches:
        live(batch)
    shadow = copy.deepcopy(live)
    print("live:", len(live._batch_mean), live.seen())
    print("shadow:", len(shadow._batch_mean), shadow.seen())
    print("shadow keys are the caller's batches:", all(any(k is b for b in batches) for k in shadow._batch_mean))
    del batches[0], batch
    gc.collect()
    print("after the caller drops a batch:", len(live._batch_mean), len(shadow._batch_mean))
