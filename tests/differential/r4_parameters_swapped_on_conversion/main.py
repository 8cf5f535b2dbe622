"""Class 4 (the replaced type's contract): with swapping on conversion turned on, ``model.double()``
swaps each parameter with ``torch.utils.swap_tensors``, which raises for a tensor that has a weak
reference. A set of the parameters that skip weight decay, held weakly, would make the conversion fail.
(A program of its own directory: the flag is process-wide, so every module of a project is refused.)"""
# expect: refused: turns on `torch.__future__.set_swap_module_params_on_conversion`
import torch
from torch import nn

import groups


def main() -> None:
    torch.__future__.set_swap_module_params_on_conversion(True)
    try:
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.Linear(8, 2))
        groups.collect(model)
        model.double()
        print("float64 output", [round(v, 6) for v in model(torch.ones(1, 4, dtype=torch.float64))[0].tolist()])
        print("still grouped", sum(p in groups.NO_DECAY for p in model.parameters()))
    finally:
        torch.__future__.set_swap_module_params_on_conversion(False)
