"""Class 2: the container is the state of a module-level instance, and a run deep-copies that instance
(to roll back after a failed step) on its own: in the original the copy keeps copies of every module."""
# expect: refused: deep-copied | deepcopy | holder | instance
import copy

from torch import nn


class Plan:
    def __init__(self) -> None:
        self.placement = {}

    def place(self, module: nn.Module, device: str) -> None:
        self.placement[module] = device


plan = Plan()


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    for i, module in enumerate(model):
        plan.place(module, f"cuda:{i}")
    backup = copy.deepcopy(plan)
    print("backup entries:", len(backup.placement))
    print("backup devices:", sorted(backup.placement.values()))
    print("backup keys are copies:", all(k is not m for k in backup.placement for m in model))
    plan.placement.clear()
    print("the backup survives a clear of the live plan:", len(backup.placement), len(plan.placement))
