"""A list of hooked modules is sorted with a key that appends to the list (a lazy registration made
while ranking); list.sort detects the change and raises ValueError, which the caller reports."""
# expect: fixed
import torch
from torch import nn

HOOKED = []
EXTRA = nn.Linear(1, 1)


def rank(m: nn.Module) -> int:
    if EXTRA not in HOOKED and isinstance(m, nn.ReLU):
        HOOKED.append(EXTRA)
    return sum(p.numel() for p in m.parameters())


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 1))
    HOOKED.extend(model)
    try:
        HOOKED.sort(key=rank)
        print("sorted")
    except ValueError as e:
        print("ValueError:", e)
    print("order", [type(m).__name__ for m in HOOKED])
    print("has extra", EXTRA in HOOKED, len(HOOKED))
