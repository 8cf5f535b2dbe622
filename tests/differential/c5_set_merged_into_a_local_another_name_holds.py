"""``total |= SEEN`` where another name holds the set first: a set's ``|=`` adds in place, so ``alias``
sees the items; with the runtime's set, ``total`` would become a new set and ``alias`` would stay empty."""
# expect: refused: which the fix cannot follow
from torch import nn

SEEN = set()
MODEL = nn.Sequential(nn.Linear(2, 2), nn.ReLU())


def see(model: nn.Module) -> None:
    for module in model.modules():
        SEEN.add(module)


def main() -> None:
    see(MODEL)
    total = set()
    alias = total
    total |= SEEN
    print("total:", len(total), "alias:", len(alias))


if __name__ == "__main__":
    main()
