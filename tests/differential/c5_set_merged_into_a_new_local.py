"""A safe fix once refused: ``total |= SEEN`` into a set the function makes. ``set.__ior__`` takes only
sets, so with the runtime's set ``total`` becomes a new set with the same items; no other name holds the
old one, so nothing can tell."""
# expect: fixed
from torch import nn

SEEN = set()
MODEL = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))


def see(model: nn.Module) -> None:
    for module in model.modules():
        SEEN.add(module)


def kinds() -> list[str]:
    total = {MODEL}
    total |= SEEN
    print("merged:", len(total), MODEL in total)
    return sorted(type(module).__name__ for module in total)


def main() -> None:
    see(MODEL)
    print(kinds())
    print("seen:", len(SEEN))


if __name__ == "__main__":
    main()
