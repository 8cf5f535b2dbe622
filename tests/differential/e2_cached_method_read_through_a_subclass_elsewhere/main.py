"""Class 2, across modules: another module reads the cache of the cached method through a subclass
defined in a third module (`hits(Scaled.table)`): `Scaled` derives from `Rotary`, so `Scaled.table` is
the cached method itself, and its `cache_info()` would change under the rewrite."""
# expect: refused: uses it as `hits(Scaled.table)`
# codemod: --runtime import --unsafe-fixes
from pkg.scaled import Scaled


def hits(method) -> int:
    return method.cache_info().hits


def main() -> None:
    s = Scaled()
    print(s.table(3).tolist(), s.table(3).tolist(), hits(Scaled.table))
