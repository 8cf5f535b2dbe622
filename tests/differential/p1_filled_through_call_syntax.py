"""Class 1 (ownership: callers, by every route): a tracker object is called with layers built on the
spot (`track(nn.Linear(...))`). Python runs `Tracker.__call__` for that syntax, which no call names, so
"nothing calls it: its callers keep what they pass" had nothing to rest on."""
# expect: refused: is called by Python itself
import gc

from torch import nn

FIRST_SEEN = {}


class Tracker:
    def __call__(self, module: nn.Module) -> None:
        FIRST_SEEN.setdefault(module, len(FIRST_SEEN))


track = Tracker()


def main() -> None:
    track(nn.Linear(2, 3))
    track(nn.Linear(3, 4))
    gc.collect()
    print("seen:", sorted((order, module.out_features) for module, order in FIRST_SEEN.items()))
