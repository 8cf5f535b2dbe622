"""Class 2, a refusal that should be a fix: `match` with mapping and wildcard patterns accepts any Mapping,
as WeakIdMap is; only class patterns (`case dict():`) need a real dict."""
# expect: fixed
import gc

from torch import nn

table = {}


def fill(model: nn.Module) -> None:
    for m in model.modules():
        table[m] = type(m).__name__


def describe() -> str:
    match table:
        case {}:
            return f"a mapping of {len(table)}"
        case _:
            return "not a mapping"


def main() -> None:
    model = nn.Sequential(nn.ReLU())
    fill(model)
    print(describe())
    del model
    gc.collect()
    print("[gc] entries once the model is gone:", len(table))
