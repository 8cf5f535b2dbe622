"""Class 7 (values), across modules: the registry's own module stores only modules its callers keep, but
this module stores a wrapper it builds in the fill, which only the registry keeps. The fix cannot check
another module's values, so it must be refused."""
# expect: refused: `w8_filled_from_another_module/main.py` line 22 uses it as a fill
# codemod: --runtime import --unsafe-fixes
import gc

from torch import nn

import registry


class Tagged(nn.Module):
    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner


def main() -> None:
    model = nn.Linear(2, 2)
    registry.register("head", model)
    registry.layers["tagged head"] = Tagged(model)
    gc.collect()
    print("registered:", list(registry.layers), type(registry.layers["tagged head"]).__name__)


if __name__ == "__main__":
    main()
