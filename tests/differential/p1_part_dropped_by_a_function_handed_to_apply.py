"""Class 1 (ownership: a part let go by code that torch runs): weight decay is planned per parameter, keyed
by the parameter. Before export, `model.apply(strip_norms)` replaces each `LayerNorm` with an identity;
`apply` calls the function on every submodule, so the release happens in a function no line calls by name.
The plan's total then walks parameters that only the plan keeps."""
# expect: refused: reads the whole container after that
import gc

import torch
from torch import nn

DECAY = {}


def plan(model: nn.Module) -> None:
    for name, param in model.named_parameters():
        DECAY[param] = 0.0 if name.endswith("bias") or "norm" in name else 0.01


def strip_norms(module: nn.Module) -> None:
    for name, child in list(module.named_children()):
        if isinstance(child, nn.LayerNorm):
            setattr(module, name, nn.Identity())


def decayed_numel() -> int:
    return sum(p.numel() for p, decay in DECAY.items() if decay == 0.0)


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4), nn.Linear(4, 2))
    model.norm = nn.LayerNorm(2)
    plan(model)
    print("undecayed numel", decayed_numel())
    model.apply(strip_norms)
    gc.collect()
    print("undecayed numel after export prep", decayed_numel())


if __name__ == "__main__":
    main()
