"""Class 7 (values): a self-registering layer registry, which the codemod rewrites only with
`--unsafe-fixes` (a lookup by name misses once the object's other owners let go): by default it is left,
and says what to check."""
# expect: refused: rerun with `--unsafe-fixes`
from torch import nn

_LAYERS = {}


class Block(nn.Module):
    def __init__(self, prefix: str) -> None:
        super().__init__()
        _LAYERS[prefix] = self


def main() -> None:
    model = nn.Sequential(Block("a"), Block("b"))
    print("layers", list(_LAYERS), _LAYERS["a"] is model[0])
