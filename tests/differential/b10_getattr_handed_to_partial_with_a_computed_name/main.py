"""Uses by routes: a getter registry built with functools.partial(getattr, module, computed name) hands the call counts to torch's pytree, which treats only an exact dict as a node."""
# expect: refused: hands `getattr` on with
import torch
from torch import nn

from stats import counters, flatten


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 5), nn.ReLU(), nn.Linear(5, 1))
    print("hooked", counters.watch(model))
    for step in range(3):
        with torch.no_grad():
            y = model(torch.randn(4, 3))
        print("step", step, "mean %.4f" % y.mean().item())
    leaves, ints, total = flatten.numbers()
    print("leaves", leaves, "counters", ints, "calls", total)


if __name__ == "__main__":
    main()
