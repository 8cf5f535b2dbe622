"""Class 1 (ownership: the owner handed to code the proof cannot read): teardown steps are queued as
`functools.partial(delattr, model, name)` and run later by a loop that knows nothing of the model. The
auxiliary heads they delete were recorded, keyed by head, with their loss weights; the summary walks the
record, which alone keeps the deleted heads."""
# expect: refused: reads the whole container after that
import functools
import gc

import torch
from torch import nn

AUX_WEIGHT = {}
TEARDOWN = []


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(3, 3)
        self.aux_a = nn.Linear(3, 1)
        self.aux_b = nn.Linear(3, 1)


def add_aux(model: nn.Module) -> None:
    for name, child in model.named_children():
        if name.startswith("aux"):
            AUX_WEIGHT[child] = 0.3 if name.endswith("a") else 0.1
            TEARDOWN.append(functools.partial(delattr, model, name))


def summary() -> list:
    return sorted((head.out_features, weight) for head, weight in AUX_WEIGHT.items())


def main() -> None:
    torch.manual_seed(0)
    model = Net()
    add_aux(model)
    print("aux heads", summary())
    for step in TEARDOWN:
        step()
    gc.collect()
    print("aux heads after teardown", summary())
    print("body kept", round(float(model.body.weight.sum()), 4))


if __name__ == "__main__":
    main()
