"""Class 3: a set of modules that already had their hooks installed, maintained with the in-place set
operators and compared with frozensets."""
# expect: fixed
import gc

from torch import nn

hooked = set()


def install(module: nn.Module) -> None:
    hooked.add(module)


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2), nn.Tanh())
    names = {m: n for n, m in model.named_children()}
    for m in model[:2]:
        install(m)
    global hooked
    hooked |= {model[2]}
    print("after |=:", sorted(names[m] for m in hooked))
    hooked -= {model[1]}
    print("after -=:", sorted(names[m] for m in hooked))
    hooked &= set(model[:3])
    print("after &=:", sorted(names[m] for m in hooked))
    hooked ^= {model[3], model[0]}
    print("after ^=:", sorted(names[m] for m in hooked))
    hooked.intersection_update(model.children())
    hooked.symmetric_difference_update([model[1]])
    print("after the update methods:", sorted(names[m] for m in hooked))
    print("== frozenset:", hooked == frozenset(hooked), frozenset(hooked) == hooked, len(frozenset(hooked)))
    popped = hooked.pop()
    print("pop takes one:", len(hooked), popped in names)
    hooked.add(popped)
    del popped
    copied = hooked.copy()
    copied.clear()
    print("a copy is independent:", len(hooked), len(copied))
    del copied, names, m
    model[3] = nn.Identity()
    gc.collect()
    print("[gc] hooked after replacing the Tanh:", len(hooked))
