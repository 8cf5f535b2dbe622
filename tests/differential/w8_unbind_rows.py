"""Class 7 (values), adversarial: rows of a table indexed by token, from `table.unbind(0)`, which makes a new
tensor per row that only the index keeps."""
# expect: refused: which makes new objects as it goes
# codemod: --runtime import --unsafe-fixes
import gc

import torch

_ROWS = {}


def index_rows(table: torch.Tensor, names: list) -> None:
    for name, row in zip(names, table.unbind(0)):
        _ROWS[name] = row
    _ROWS["first"] = table[0]


def main() -> None:
    table = torch.randn(3, 2)
    index_rows(table, ["<pad>", "a", "b"])
    gc.collect()
    print("names", list(_ROWS), tuple(_ROWS["a"].shape))
