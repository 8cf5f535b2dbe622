"""A generator expression over the names, kept and read later, after one more module is registered: a
dict raises `RuntimeError: dictionary changed size during iteration` at the next step; the runtime's
snapshot walk would go on silently."""
# expect: refused: kept for later
from torch import nn

names = {}


def register(m: nn.Module, name: str) -> None:
    names[m] = name


def main() -> None:
    a, b, c = nn.Linear(1, 1), nn.ReLU(), nn.Tanh()
    register(a, "a")
    register(b, "b")
    pending = (name for name in names.values())
    print("first:", next(pending))
    register(c, "c")
    try:
        print("rest:", list(pending))
    except RuntimeError as error:
        print("RuntimeError:", error)
    print("sorted:", sorted(name for name in names.values()))


if __name__ == "__main__":
    main()
