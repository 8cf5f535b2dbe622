"""A served model lives in the global ``MODEL``, built at import; ``reload()`` rebinds it (``global MODEL``)
to a fresh build. ``label(MODEL, ...)`` puts each model's row in a module-level map keyed by the model,
read after the reload, and the first model's row is still expected there. The global keeps only its latest
model, so the map is the first model's only owner: a weak map would lose its row."""
# expect: refused: is bound more than once
import gc

import torch
from torch import nn


def build(seed: int) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 1))


MODEL = build(0)
LABELS = {}


def label(model: nn.Module, name: str) -> None:
    LABELS[model] = (name, round(model(torch.ones(1, 4)).item(), 5))


def reload() -> None:
    global MODEL
    MODEL = build(1)


def main() -> None:
    label(MODEL, "v0")
    reload()
    label(MODEL, "v1")
    gc.collect()
    print("labelled", len(LABELS), sorted(LABELS.values()))
    print("current", LABELS[MODEL][0])


if __name__ == "__main__":
    main()
