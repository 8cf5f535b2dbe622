"""Class 2 (uses by every route): a package finds its backends with `import_module` of a computed name
and reads `getattr(module, "PLANS", None)`, clearing it only if it is a dict. The module it reads is
found by no name the index sees; the attribute's own name is the one trace."""
# expect: refused: reads `PLANS` with | reads `PLANS` from what it finds
from torch import nn

import backends
from backends import fast


def main() -> None:
    layer = nn.Linear(4, 2)
    print("plan:", fast.plan(layer))
    print("cleared:", backends.reset())
    layer.in_features = 2
    print("plan after reset:", fast.plan(layer))
