"""Class 2 (uses by every route), adversarial: the singleton's instance, bound to a local, is deep-copied
whole; the copy's map would keep nothing (adversarial set 27's p25)."""
# expect: refused: the instance `Manager.get_instance()` hands out, used whole
import copy

from torch import nn

from pkg.manager import Manager
from pkg.prepare import prepare


def main() -> None:
    model = nn.Sequential(nn.Embedding(4, 2), nn.Embedding(3, 2))
    prepare(model)
    manager = Manager.get_instance()
    print("lookup", manager.lookup(model[0]), manager.count())
    twin = copy.deepcopy(manager)
    print("copied", twin.count())


if __name__ == "__main__":
    main()
