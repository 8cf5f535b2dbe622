"""Class 7 (formatting): a `# type: set` comment on the container must not outlive the rewrite as a
stale type comment."""
# expect: fixed
import gc

from torch import nn

initialized = set()  # type: set


def init_once(module: nn.Module) -> bool:
    if module in initialized:
        return False
    for p in module.parameters():
        nn.init.zeros_(p)
    initialized.add(module)
    return True


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    print("first:", [init_once(m) for m in model], "again:", [init_once(m) for m in model])
    print("weights zero:", all(float(p.abs().sum()) == 0 for p in model.parameters()))
    model[0] = nn.Linear(2, 2)
    gc.collect()
    print("[gc] initialized after replacing a layer:", len(initialized))
    print("new layer:", init_once(model[0]))
