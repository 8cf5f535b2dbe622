"""Uses by every route: another module empties the dict globals of a module it imports by name, with
dir() and getattr(); after the rewrite the map is no dict to it, and its entries would survive the reset."""
# expect: refused: by name
from torch import nn

from tools import reset, state


def main() -> None:
    model = nn.Linear(2, 2)
    state.see(model)
    print("cleared", reset.reset_state())
    print("seen after reset", len(state.SEEN))
