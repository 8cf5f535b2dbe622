"""Class 2: the map is bound to a second name by a walrus inside a condition, then type-checked and
copied into a plain dict comprehension keyed by the map's own keys' ids."""
# expect: refused: type is checked | isinstance | walrus | alias | `:=`
from torch import nn

act_stats = {}


def record(module: nn.Module, value: float) -> None:
    act_stats[module] = value


def summary() -> str:
    if isinstance(stats := act_stats, dict) and stats:
        return f"{len(stats)} dict entries, max {max(stats.values())}"
    return "no stats"


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    for i, m in enumerate(model):
        record(m, float(i))
    print(summary())
    print("relu:", act_stats[model[1]])
