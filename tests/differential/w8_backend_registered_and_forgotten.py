"""Class 7 (values): backends register themselves by name when built, and this module builds the default
one as a bare statement at import, keeping no reference: the registry is its only owner, so a weak value
would lose it before anything looks it up."""
# expect: refused: builds one that nothing else keeps
# codemod: --runtime import --unsafe-fixes
from torch import nn

BACKENDS = {}


class Backend(nn.Module):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        BACKENDS[name] = self


Backend("cpu")


def main() -> None:
    print("backends:", list(BACKENDS), type(BACKENDS["cpu"]).__name__)


if __name__ == "__main__":
    main()
