"""Class 3: a parameter table used through the rest of the dict API real code reaches for: fromkeys,
copy.copy and .copy(), popitem order, dict(), ==, set operations on keys(), str() for logging, max/sorted
with the map's own methods as keys, deleting while walking a list of the keys, update from another map."""
# expect: fixed
import copy
import gc

import torch
from torch import nn

grad_steps = {}
lr_mult = {}


def init(model: nn.Module) -> None:
    global grad_steps
    grad_steps = dict.fromkeys(model.parameters(), 0)
    for name, p in model.named_parameters():
        lr_mult[p] = 0.1 if name.endswith("bias") else 1.0


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
    names = {p: n for n, p in model.named_parameters()}
    init(model)
    for i, p in enumerate(model.parameters()):
        grad_steps[p] += i
    print("fromkeys then +=:", [grad_steps[p] for p in model.parameters()])
    shallow = copy.copy(lr_mult)
    other = lr_mult.copy()
    shallow[model[0].weight] = 5.0
    print("copies are independent:", lr_mult[model[0].weight], shallow[model[0].weight], other[model[0].weight])
    print("as a dict:", sorted(names[p] for p in dict(lr_mult)))
    print("== dict of itself:", lr_mult == dict(lr_mult), "== {}:", lr_mult == {}, "!= {}:", lr_mult != {})
    print("keys & params:", sorted(names[p] for p in lr_mult.keys() & set(model[1].parameters())))
    print("keys - params:", sorted(names[p] for p in lr_mult.keys() - set(model[1].parameters())))
    print("keys == keys:", lr_mult.keys() == grad_steps.keys(), len(lr_mult.keys()))
    print("most steps:", names[max(grad_steps, key=grad_steps.get)])
    print("by multiplier:", [names[p] for p in sorted(lr_mult, key=lr_mult.__getitem__)])
    print("logged:", str(lr_mult).count("Parameter containing"), f"{len(lr_mult)} entries")
    last = lr_mult.popitem()
    print("popitem is the last inserted:", names[last[0]], last[1], len(lr_mult))
    lr_mult[last[0]] = last[1]
    for p in list(grad_steps):
        if names[p].endswith("bias"):
            del grad_steps[p]
    print("after deleting biases:", sorted(names[p] for p in grad_steps))
    grad_steps.update(lr_mult)
    print("update from the other map:", sorted((names[p], v) for p, v in grad_steps.items()))
    del shallow, other, last, p, names
    model[1] = nn.Linear(3, 1)
    gc.collect()
    print("[gc] multipliers after replacing a layer:", len(lr_mult))
    print("[gc] steps after replacing a layer:", len(grad_steps))
