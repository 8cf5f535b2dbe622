"""A safe fix once refused: a report builds a plain dict of the map's keys with `dict.fromkeys(X, 0)`,
which only iterates its argument. The rewrite must be made and print the same."""
# expect: fixed
import gc

from torch import nn

STEP_COST = {}


def record(model: nn.Module) -> None:
    for module in model.modules():
        STEP_COST[module] = sum(p.numel() for p in module.parameters(recurse=False))


def zeroed() -> dict:
    return dict.fromkeys(STEP_COST, 0)


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    record(model)
    counts = zeroed()
    print("zeroed:", sorted(type(m).__name__ for m in counts), sorted(counts.values()))
    print("costs:", sorted(STEP_COST.values()))
    del model, counts
    gc.collect()
    print("[gc] entries left:", len(STEP_COST))
