"""Class 2 (uses by every route), adversarial: the package holds a module named ``setup.py``, once taken
for the project's marker, which left this script beside the package outside the uses checked; it
deep-copies the singleton whole (adversarial set 27's p25 as written)."""
# expect: refused: uses it as `manager`, the instance `Manager.get_instance()` hands out, used whole
import copy

from torch import nn

from pkg.manager import Manager
from pkg.setup import setup


def main() -> None:
    model = nn.Sequential(nn.Embedding(4, 2), nn.Embedding(3, 2))
    setup(model)
    manager = Manager.get_instance()
    twin = copy.deepcopy(manager)
    print("copied", twin.count(), manager.count())


if __name__ == "__main__":
    main()
