"""Class 3: the map spread into new dicts (`{**m, k: v}`, `dict(m, **kw)`), its items view compared and
combined as a set, and its live views kept across mutations."""
# expect: fixed
import gc

import torch
from torch import nn

lr_of = {}


def assign(model: nn.Module) -> None:
    for name, p in model.named_parameters():
        lr_of[p] = 0.01 if "bias" in name else 0.1


def main() -> None:
    model = nn.Linear(2, 2)
    names = {p: n for n, p in model.named_parameters()}
    assign(model)
    extra = nn.Parameter(torch.zeros(1))
    names[extra] = "extra"
    merged = {**lr_of, extra: 1.0}
    print("spread:", type(merged).__name__, sorted((names[p], v) for p, v in merged.items()))
    print("dict(m):", sorted(names[p] for p in dict(lr_of)))
    view = lr_of.keys()
    values = lr_of.values()
    items = lr_of.items()
    lr_of[extra] = 0.5
    print("views are live:", len(view), len(values), len(items), extra in view, (extra, 0.5) in items)
    print("items & set:", sorted(names[p] for p, _ in items & {(model.bias, 0.01), (model.weight, 0.5)}))
    print("items == items:", lr_of.items() == dict(lr_of).items())
    print("values sum:", round(sum(values), 4), "any big:", any(v > 0.2 for v in values))
    del lr_of[extra]
    print("after del, the views follow:", len(view), extra in view)
    lr_of[extra] = 2.0
    del merged, extra, names
    gc.collect()
    print("[gc] views after the extra parameter is gone:", len(view))
    print("[gc] values after the extra parameter is gone:", sorted(values))
