"""A logger formats fields with a width spec; a dict rejects a non-empty spec with a TypeError naming
`dict.__format__`, which the logger catches and prints."""
# expect: fixed
import torch
from torch import nn

ACT_COUNTS = {}


def count(m: nn.Module) -> None:
    ACT_COUNTS[m] = ACT_COUNTS.get(m, 0) + 1


def log_field(name: str, value) -> str:
    try:
        return f"{name}={value:>8}"
    except TypeError as e:
        return f"{name}=<{e}>"


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
    for m in model:
        count(m)
    count(model[0])
    print(log_field("n", len(ACT_COUNTS)))
    print(log_field("counts", ACT_COUNTS))
    print(sorted(ACT_COUNTS.values()))
