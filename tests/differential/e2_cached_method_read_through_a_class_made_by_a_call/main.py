"""Class 2, across modules: a subclass whose base a call gives (`class Scaled(with_scale(Rotary))`):
no name says what it derives from, so `hits(Scaled.table)` may read the cached method's own cache."""
# expect: refused: uses it as `hits(Scaled.table)`
# codemod: --runtime import --unsafe-fixes
from pkg.scaled import Scaled


def hits(method) -> int:
    return method.cache_info().hits


def main() -> None:
    s = Scaled()
    print(s.table(3).tolist(), s.table(3).tolist(), hits(Scaled.table))
