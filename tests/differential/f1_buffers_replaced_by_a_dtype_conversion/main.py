"""Class 2 (uses by every route), adversarial: the caller converts its model to float64 after handing it
over, and torch's conversion puts new tensors in place of the module's buffers, so the old ones have no
owner but the registry (adversarial set 29's p33, p43, p46)."""
# expect: refused: puts new tensors in place of its buffers
import torch
from torch import nn

from pkg.stats import record_buffers, recorded


def main() -> None:
    torch.manual_seed(0)
    model = nn.BatchNorm1d(3)
    record_buffers(model)
    print("before", recorded())
    model.double()
    print("after", recorded())


if __name__ == "__main__":
    main()
