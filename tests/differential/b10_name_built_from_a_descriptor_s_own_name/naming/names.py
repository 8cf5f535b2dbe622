"""Maps each submodule of a model to its qualified name, filled at start-up."""
from torch import nn

MODULE_NAMES = {}


def index(model: nn.Module) -> int:
    for name, module in model.named_modules():
        MODULE_NAMES[module] = name or "<root>"
    return len(MODULE_NAMES)


def qualname(module: nn.Module) -> str:
    return MODULE_NAMES.get(module, "?")
