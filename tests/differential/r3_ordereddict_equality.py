"""Class 3: an OrderedDict of modules in registration order, compared with == to another OrderedDict:
OrderedDicts compare order-sensitively."""
# expect: refused: == | compared | order
from collections import OrderedDict

from torch import nn

call_order = OrderedDict()


def note(module: nn.Module, name: str) -> None:
    call_order[module] = name


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2))
    for name, child in model.named_children():
        note(child, name)
    same = OrderedDict((m, n) for n, m in model.named_children())
    shuffled = OrderedDict((m, n) for n, m in reversed(list(model.named_children())))
    print("equal to the same order:", call_order == same)
    print("equal to another order:", call_order == shuffled)
    print("equal to a plain dict:", call_order == dict(shuffled))
    print("names:", list(call_order.values()))
