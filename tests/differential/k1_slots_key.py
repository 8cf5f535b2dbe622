"""Class 1: a table of owners keyed by module, where sharding plans (a small class with __slots__ and no
__weakref__, so no weak reference to it is possible) are registered in the same table."""
# expect: fixed
import gc

from torch import nn


class ShardPlan:
    __slots__ = ("name", "ranks")

    def __init__(self, name: str, ranks: int) -> None:
        self.name = name
        self.ranks = ranks


owner_table = {}


def register_model(model: nn.Module) -> None:
    for name, module in model.named_modules():
        owner_table[module] = name or "root"


def register_plan(name: str, ranks: int) -> ShardPlan:
    plan = ShardPlan(name, ranks)
    owner_table[plan] = f"plan:{name}"
    return plan


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    register_model(model)
    plan = register_plan("tp", 2)
    print("len:", len(owner_table))
    print("plan registered:", plan in owner_table, owner_table[plan])
    print("a different plan is not:", ShardPlan("tp", 2) in owner_table)
    print("names in order:", list(owner_table.values()))
    print("module lookups:", [owner_table[m] for m in model])
    del model
    gc.collect()
    print("[gc] names once the model is gone:", len(owner_table))
    del plan
    gc.collect()
    print("[gc] entries once the plan is dropped too (the plan is held strongly, as a dict holds it):", len(owner_table))
