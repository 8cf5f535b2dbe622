"""Class 2, adversarial: code run from a string (``exec``) stores into the model the proof cannot read,
letting go of the old head (adversarial set 29's p31)."""
# expect: refused: runs code the proof cannot read
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
    exec("net.head = nn.Identity()")
    print("names", recorded())


if __name__ == "__main__":
    main()
