"""Class 2 (uses by every route): another module keeps the object that holds the map
(`self.state = tracker.STATE`) and deep-copies it. The copy's keys are copies of the parameters that
only the copied map holds: a weak map drops them at once. Handing the holder to a call was refused;
binding it to another name was not."""
# expect: refused: a value bound to another name
import torch
from torch import nn

import tracker
from trainer import Trainer


def main() -> None:
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    tracker.record(model)
    print("snapshot:", Trainer().snapshot())
