"""Class 2 (uses by every route), adversarial: a helper hands the singleton out, and a serializer branches
on the type of its map (adversarial set 27's p33)."""
# expect: refused: the instance `Manager.get_instance()` hands out, used whole (`return Manager.get_instance()`)
from torch import nn

from pkg.prepare import current, prepare


def to_plain(value: object) -> str:
    return "dict" if isinstance(value, dict) else type(value).__name__


def main() -> None:
    model = nn.Sequential(nn.Embedding(4, 2), nn.Linear(2, 2))
    prepare(model)
    print("kind", to_plain(getattr(current(), "over" + "rides")), current().count())


if __name__ == "__main__":
    main()
