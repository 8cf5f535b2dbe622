"""Class 3: a dict's items() view reads each value when it reaches it, so a loop that updates a later
entry sees the update, and so must the runtime's walk, whose snapshot once gave the value of a key held
strongly (the string "total") from before the loop."""
# expect: fixed
from torch import nn

counts = {}


def count(m: nn.Module, n: int) -> None:
    counts[m] = n


def main() -> None:
    a, b = nn.ReLU(), nn.Tanh()
    count(a, 2)
    count(b, 3)
    counts["total"] = 0
    for key, value in counts.items():
        if key == "total":
            print("total seen in the loop:", value)
        else:
            counts["total"] = counts["total"] + value
    print("total after:", counts["total"])
