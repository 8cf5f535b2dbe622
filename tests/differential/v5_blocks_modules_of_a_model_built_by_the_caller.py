"""Class 5: `index(nn.Sequential(...))` hands the filling function a model built in the call; the map of
its modules is the only thing that keeps them, so a weak map would be empty once the call returns."""
# expect: refused: which the call at line
from torch import nn

kinds = {}


def index(model: nn.Module) -> None:
    for m in model.modules():
        kinds[m] = type(m).__name__


def main() -> None:
    index(nn.Sequential(nn.Linear(1, 1), nn.ReLU()))
    print("indexed:", sorted(kinds.values()))
