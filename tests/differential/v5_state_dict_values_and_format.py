"""Class 5: a snapshot of each layer's state_dict by layer (its tensors, never the layer) must not block the
fix; nor must logging the map with str.format, which prints it as str() does."""
# expect: fixed
import gc

from torch import nn

snapshots = {}


def snap(model: nn.Module) -> None:
    for m in model.children():
        snapshots[m] = m.state_dict()


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    snap(model)
    print("keys:", [sorted(sd) for sd in snapshots.values()])
    print("logged: {}".format(snapshots).count("Linear"))
    del model
    gc.collect()
    print("[gc] snapshots once the model is gone:", len(snapshots))
