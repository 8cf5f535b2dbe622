"""Class 2: a helper in the same module snapshots any table it is given with pickle."""
# expect: refused: serialized | pickle | passed
import pickle

import torch
from torch import nn

step_of = {}


def snapshot(table) -> bytes:
    return pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL)


def on_step(p: nn.Parameter, step: int) -> None:
    step_of[p] = step


def main() -> None:
    layer = nn.Linear(2, 1)
    for step, p in enumerate(layer.parameters()):
        on_step(p, step)
    blob = snapshot(step_of)
    restored = pickle.loads(blob)
    print("snapshot entries:", len(restored), sorted(restored.values()))
    print("restored keys are tensors:", all(isinstance(k, torch.Tensor) for k in restored))
    print("plain dict still snapshots:", len(pickle.loads(snapshot({"a": 1}))))
