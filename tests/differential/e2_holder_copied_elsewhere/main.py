"""§4 of the fix-safety issue: another module copies the module-level instance that holds the container;
a copy of a WeakIdSet is no set (and deep-copied keys would be owned by the copy alone)."""
# expect: refused: passes the instance that holds it
import copy

from torch import nn

from pkg import state


def main() -> None:
    m = nn.Linear(2, 2)
    state.tracker.add(m)
    snapshot = copy.deepcopy(state.tracker)
    print(len(snapshot.seen))
