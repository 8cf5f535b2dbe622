"""Class 2: a test helper resets module state by clearing every `*_names` dict in globals(). After the fix
they are no dicts, so nothing would be cleared: reading the globals whole is an escape."""
# expect: refused: the module reads its globals whole with `globals()`
from torch import nn

module_names = {}
param_names = {}


def index(model: nn.Module) -> None:
    for n, m in model.named_modules():
        module_names[m] = n
    for n, p in model.named_parameters():
        param_names[p] = n


def reset_state() -> int:
    cleared = 0
    for name, value in list(globals().items()):
        if name.endswith("_names") and isinstance(value, dict):
            value.clear()
            cleared += 1
    return cleared


def main() -> None:
    model = nn.Linear(2, 2)
    index(model)
    print("cleared:", reset_state(), "left:", len(module_names), len(param_names))
