"""Metric modules register themselves on construction so a reporter can find them."""
# expect: refused: nothing is shown to keep it once
import gc

import torch
import torch.nn as nn

ALL_METRICS = []


class RunningMean(nn.Module):
    def __init__(self, label: str) -> None:
        super().__init__()
        self.label = label
        self.register_buffer("total", torch.zeros(()))
        ALL_METRICS.append(self)

    def update(self, x: torch.Tensor) -> None:
        self.total += x.sum()


def evaluate(batch: torch.Tensor) -> float:
    metric = RunningMean("eval")
    metric.update(batch)
    return float(metric.total)


def main() -> None:
    print("eval total:", evaluate(torch.arange(3.0)))
    keeper = RunningMean("train")
    keeper.update(torch.ones(4))
    gc.collect()
    print("[gc] registered metrics:", len(ALL_METRICS))
    print("keeper slot:", ALL_METRICS.index(keeper))
    print("keeper total:", float(keeper.total))
