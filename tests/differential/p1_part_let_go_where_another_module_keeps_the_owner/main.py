"""Class 1 (ownership: an owner in another module lets go): the tracker lists a model's layers; the training
script, which keeps the model, swaps its middle layer (`model[1] = ...`) before the schedule, in a third
module, reads the list by position. A weak list would close up the old layer's place, so every later layer
would get its neighbour's rate."""
# expect: refused: lets go of it
import gc

import torch
from torch import nn

import schedule
import tracking


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))
    tracking.track(model)
    model[1] = nn.GELU()
    gc.collect()
    print("rates", schedule.rates_by_layer())
    print("model", [type(m).__name__ for m in model])


if __name__ == "__main__":
    main()
