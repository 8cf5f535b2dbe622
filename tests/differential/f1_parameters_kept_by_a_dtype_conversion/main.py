"""Class 2, the control beside ``f1_buffers_replaced_by_a_dtype_conversion``: a conversion converts a
module's parameters in place (the same ``nn.Parameter`` objects), so a registry of parameters is still
owned by the model and its fix changes nothing the program sees."""
# expect: fixed
import torch
from torch import nn

from pkg.names import record_parameters, recorded


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    record_parameters(model)
    print("before", recorded())
    model.double()
    print("after", recorded(), next(model.parameters()).dtype)


if __name__ == "__main__":
    main()
