"""A width sweep in ``main``: the local ``model`` is rebound on each pass, and each model is registered in a
module-level map read after the loop. Only the map keeps the earlier models, so a weak map would lose
their rows: the entry point's local is no owner when it is bound in a loop."""
# expect: refused: bound in a loop
import torch
from torch import nn

SCORES = {}


def score(model: nn.Module, width: int) -> None:
    SCORES[model] = (width, round(model(torch.ones(1, 4)).sum().item(), 5))


def main() -> None:
    torch.manual_seed(0)
    for width in (2, 4, 8):
        model = nn.Sequential(nn.Linear(4, width), nn.ReLU(), nn.Linear(width, 1))
        score(model, width)
        print("width", width, "parameters", sum(p.numel() for p in model.parameters()))
    print("scored", len(SCORES), sorted(value for value in SCORES.values()))


if __name__ == "__main__":
    main()
