"""Uses by every route: the map is re-exported by the package, and a module that never names the
defining module pickles it through the re-export; a weak map cannot be pickled."""
# expect: refused: pickle
import pickle

from torch import nn

from pkg import NAMES, record


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2))
    record(model)
    copied = pickle.loads(pickle.dumps(NAMES))
    print("pickled", type(copied).__name__, sorted(copied.values()))
