"""Class 3 (set 4): a loop over a list reads it as it is at each step: a breadth-first walk that extends
the list it walks visits the children, and a removal during the loop skips the element after it. The
runtime once iterated a snapshot: the walk went over the root alone, and the prune removed every
Sequential, where the list's loop skips the element after each one it removes."""
# expect: fixed
from torch import nn

FRONTIER = []


def visit(module: nn.Module) -> None:
    FRONTIER.append(module)


def main() -> None:
    model = nn.Sequential(nn.Sequential(nn.Linear(1, 1), nn.ReLU()), nn.Sequential(nn.Linear(1, 1)))
    names = {m: n or "root" for n, m in model.named_modules()}
    visit(model)
    for module in FRONTIER:
        FRONTIER.extend(module.children())
    print("visited:", [names[m] for m in FRONTIER])
    for module in FRONTIER:
        if isinstance(module, nn.Sequential):
            FRONTIER.remove(module)
    print("after the prune:", [names[m] for m in FRONTIER])
    print("backwards:", [names[m] for m in reversed(FRONTIER)])
