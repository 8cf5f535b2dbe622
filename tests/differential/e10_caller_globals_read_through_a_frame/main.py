"""Uses by routes: trial.track() grabs the adapters module's globals through sys._getframe(1).f_globals and checkpoints only values with type(v) in (dict, list, set); rollback misses a WeakIdMap."""
# expect: refused: reads a frame's module namespace whole
import torch
from torch import nn

from peft_lite import adapters, trial


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))
    adapters.attach(model[0], 4)
    print("checkpointed", trial.checkpoint())
    adapters.attach(model[2], 8)
    adapters.attach(model[4], 2)
    print("trial ranks", [adapters.rank_of(model[i]) for i in (0, 2, 4)])
    trial.rollback()
    print("after rollback", [adapters.rank_of(model[i]) for i in (0, 2, 4)])


if __name__ == "__main__":
    main()
