"""Uses by routes: a session reloads the probe module through sys.modules and reports every global whose type() is list/dict/set; a WeakIdList is none of them."""
# expect: refused: reads attributes by name with `vars(_module(leaf))`
import torch
from torch import nn

from probe import hooks, session


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 2))
    print("attached", hooks.attach(model))
    x = torch.randn(3, 4)
    for layer in model:
        x = layer(x)
        print("saturated", type(layer).__name__, hooks.saturated(x))
    print("snapshot", session.snapshot("hooks"))
    for line in session.restart("hooks"):
        print("reset", line)
    print("attached again", hooks.attach(model))


if __name__ == "__main__":
    main()
