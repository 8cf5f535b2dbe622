"""Uses by every route: a status line reads the set through ``sys.modules["tools.masks"]``, a constant key
that no import statement shows, and prints the type of what it finds: a route the index must follow to the
use, which the rewrite changes (``set`` becomes another type)."""
# expect: refused: which the rewrite may change
from torch import nn

from tools import masks, status


def main() -> None:
    model = nn.Linear(3, 2)
    masks.prune(model)
    print("status", status.status())
