"""Class 1 (ownership: instances built where the class is called): `__new__` lists every norm it makes
and returns it, and the program builds norms inside an expression that drops them. What `__new__`
returns goes to whoever calls the class, and those calls keep nothing."""
# expect: refused: is a local of `__new__` that holds a new object
import gc

import torch
from torch import nn

INSTANCES = []


class TrackedNorm(nn.BatchNorm1d):
    def __new__(cls, *args, **kwargs):
        instance = super().__new__(cls)
        if isinstance(instance, nn.Module):
            INSTANCES.append(instance)
        return instance


def main() -> None:
    torch.manual_seed(0)
    total = sum(float(TrackedNorm(n)(torch.randn(4, n)).sum()) for n in (2, 3))
    print("total is a number:", isinstance(total, float))
    gc.collect()
    print("tracked:", [norm.num_features for norm in INSTANCES])
