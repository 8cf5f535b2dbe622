"""Class 2 (uses by every route): a settings entry point reads the module's own globals by computed name
through `sys.modules[__name__]` and merges into those that are dicts. The caller names the map only as a
keyword; once rewritten it is no dict, so the settings replace it and the decay set before is lost."""
# expect: refused: reads attributes by name with `getattr(this, name)`
from torch import nn

from optlib import scales


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2), nn.Linear(2, 1))
    scales.decay(model, factor=0.5)
    scales.configure(BASE_LR=0.01, LR_SCALE={model[3]: 2.0})
    print("rates:", scales.rates(model))
