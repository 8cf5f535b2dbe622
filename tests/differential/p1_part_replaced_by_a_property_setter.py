"""Class 1 (ownership: a store of a plain value that runs code): `model.width = 6` looks like storing a
number, but `width` is a property whose setter builds a new projection in place of the old one. A map of
initial norms keyed by parameter is walked for the drift report, and only the map keeps the old
projection's parameters once the setter ran."""
# expect: refused: reads the whole container after that
import gc

import torch
from torch import nn

INIT_NORM = {}


class Resizable(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(4, 4)

    @property
    def width(self) -> int:
        return self.proj.out_features

    @width.setter
    def width(self, value: int) -> None:
        self.proj = nn.Linear(4, value)


def record(model: nn.Module) -> None:
    for param in model.parameters():
        INIT_NORM[param] = round(float(param.detach().norm()), 4)


def report() -> list:
    return sorted((tuple(p.shape), norm) for p, norm in INIT_NORM.items())


def main() -> None:
    torch.manual_seed(0)
    model = Resizable()
    record(model)
    model.width = 6
    gc.collect()
    print("recorded", report())
    print("width", model.width)


if __name__ == "__main__":
    main()
