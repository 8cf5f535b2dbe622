"""Class 2, adversarial: a loop whose target is an attribute of the model (``for net.head in heads:``)
stores each object into it, letting go of the old head, which then has no owner but the registry
(adversarial set 29's p27, p35)."""
# expect: refused: puts another object in a part of `net`
from torch import nn

from pkg.names import record, recorded


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(2, 2)
        self.head = nn.Linear(2, 2)


def main() -> None:
    net = Net()
    record(net)
    for net.head in [nn.Identity()]:
        pass
    print("names", recorded())


if __name__ == "__main__":
    main()
