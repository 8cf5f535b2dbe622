"""Class 3: a generator walks the names lazily while the caller registers one more module. A dict raises
`RuntimeError: dictionary changed size during iteration`; the runtime's snapshot walk would go on silently,
so the fix refuses a walk suspended at a `yield`."""
# expect: refused: yields as it goes
from torch import nn

names = {}


def register(m: nn.Module, name: str) -> None:
    names[m] = name


def walk():
    for module, name in names.items():
        yield name


def main() -> None:
    a, b, c = nn.Linear(1, 1), nn.ReLU(), nn.Tanh()
    register(a, "a")
    register(b, "b")
    walker = walk()
    print("first:", next(walker))
    register(c, "c")
    try:
        print("rest:", list(walker))
    except RuntimeError as error:
        print("RuntimeError:", error)
