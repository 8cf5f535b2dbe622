"""Uses by routes: a config module star-imports the groups module and reads each __all__ name through globals()[name], keeping only values whose type() is set."""
# expect: refused: reads its own globals by name with `globals()[name]`
import torch
from torch import nn

from optim import config, groups


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(12, 6), nn.LayerNorm(6), nn.Linear(6, 6), nn.Linear(6, 2, bias=False))
    print("no decay", groups.mark_no_decay(model))
    for key, value in sorted(config.describe().items()):
        print("config", key, value)
    decay = [p for p in model.parameters() if p not in groups.NO_DECAY]
    opt = torch.optim.AdamW([
        {"params": decay, "weight_decay": groups.DECAY_RATE},
        {"params": [p for p in model.parameters() if p in groups.NO_DECAY], "weight_decay": 0.0},
    ], lr=1e-2)
    loss = model(torch.tensor([1, 5, 7])).pow(2).mean()
    loss.backward()
    opt.step()
    print("groups", [len(g["params"]) for g in opt.param_groups])


if __name__ == "__main__":
    main()
