"""Class 3 (set 4): a list's `in`, `count`, `index` and `remove` take an element that is the one sought or
equal to it (the element's `==` first): 0-d losses of equal value match, and a multi-element tensor raises
the list's own error. The runtime once matched an object held weakly only by identity."""
# expect: fixed
import torch

BEST_LOSSES = []


def record(loss: torch.Tensor) -> None:
    BEST_LOSSES.append(loss)


def main() -> None:
    losses = [torch.tensor(value) for value in (0.5, 0.25, 0.5)]
    record(losses[0])
    record(losses[1])
    probe = losses[2]
    print("plateau:", probe in BEST_LOSSES, 0.25 in BEST_LOSSES)
    print("count:", BEST_LOSSES.count(probe))
    print("index:", BEST_LOSSES.index(probe), BEST_LOSSES.index(0.25))
    BEST_LOSSES.remove(probe)
    print("left:", [float(loss) for loss in BEST_LOSSES])
    try:
        BEST_LOSSES.index(torch.ones(2))
    except RuntimeError as error:
        print("raises:", error)
