"""Class 5: per-module callbacks that close over the module: the value keeps its key alive, so the fix
must be refused."""
# expect: refused: refers to its own key | keeps its key alive | own key
from torch import nn

describe = {}


def register(model: nn.Module) -> None:
    for name, module in model.named_modules():
        describe[module] = lambda: f"{type(module).__name__} with {sum(p.numel() for p in module.parameters())} params"


def register_callback(module: nn.Module) -> None:
    def callback() -> str:
        return f"callback for {type(module).__name__}"

    describe[module] = callback


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    register(model)
    print("descriptions:", [describe[m]() for m in model])
    register_callback(model[1])
    print("after callback:", describe[model[1]]())
