"""Class 2, adversarial: ``with ... as net.head:`` stores what the context manager returns into the model,
letting go of the old head (adversarial set 29's p28)."""
# expect: refused: puts another object in a part of `net`
import contextlib

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
    with contextlib.nullcontext(nn.Identity()) as net.head:
        pass
    print("names", recorded())


if __name__ == "__main__":
    main()
