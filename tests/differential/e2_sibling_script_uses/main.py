"""Class 2, across modules: a sibling script checks the set's type and pickles it. The directory is no
package, so nothing imports `tracker` by a dotted name: its importers are the scripts beside it."""
# expect: refused: `e2_sibling_script_uses/main.py` line
import pickle

import tracker
from torch import nn


def main() -> None:
    model = nn.Linear(2, 2)
    tracker.visit(model)
    print("is a set:", isinstance(tracker.seen, set), len(tracker.seen))
    try:
        print("pickled:", len(pickle.loads(pickle.dumps(tracker.seen))))
    except TypeError as error:
        print("pickle failed:", type(error).__name__)
