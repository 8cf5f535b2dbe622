"""Uses by routes: the episode reset finds the stats table among gc.get_referents of a module taken from sys.modules and clears only type(obj) in (dict, list, set); a WeakIdMap keeps last episode's peaks."""
# expect: refused: reads what the collector finds whole
import torch
from torch import nn

from evalkit import episodes, stats


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 5), nn.ReLU(), nn.Linear(5, 2))
    stats.observe(model, 3.0 * torch.randn(4, 5))
    print("episode 1 peaks", [stats.peak(m) for m in model])
    print("reset", episodes.reset())
    stats.observe(model, 0.1 * torch.randn(4, 5))
    print("episode 2 peaks", [stats.peak(m) for m in model])


if __name__ == "__main__":
    main()
