"""Class 7 (values): a registry stores each module with its name in a tuple built in the fill. A weak map
holds a tuple strongly (it cannot be weakly referenced), so the fix would pin the module still: refused."""
# expect: refused: cannot be weakly referenced
# codemod: --runtime import --unsafe-fixes
from torch import nn

records = {}


def track(name: str, module: nn.Module) -> None:
    records[name] = (module, name)


def main() -> None:
    model = nn.Linear(2, 2)
    track("head", model)
    print("tracked:", list(records), records["head"][0] is model)


if __name__ == "__main__":
    main()
