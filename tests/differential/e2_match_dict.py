"""Class 2: structural pattern matching on the container's type."""
# expect: refused: match | type is checked | pattern
from torch import nn

owners = {}


def own(model: nn.Module, owner: str) -> None:
    for m in model.modules():
        owners[m] = owner


def kind(container) -> str:
    match container:
        case dict():
            return f"mapping with {len(container)} entries"
        case set():
            return "set"
        case _:
            return "unknown"


def main() -> None:
    model = nn.Sequential(nn.Linear(2, 2))
    own(model, "rank0")
    match owners:
        case dict() if owners:
            print("owners is a non-empty dict:", len(owners))
        case _:
            print("owners is something else")
    print(kind(owners))
    print("lookup:", owners[model[0]])
