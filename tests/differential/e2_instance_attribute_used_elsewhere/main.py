"""Class 2, across modules: another module pickles a module-level instance's set."""
# expect: refused: `e2_instance_attribute_used_elsewhere/main.py` line 13 uses it as `pickle.dumps(tracker.seen)`
import pickle

from torch import nn
from tracking import tracker


def main() -> None:
    model = nn.Linear(1, 1)
    tracker.visit(model)
    try:
        print("pickled:", len(pickle.loads(pickle.dumps(tracker.seen))))
    except TypeError as error:
        print("pickle failed:", type(error).__name__)
