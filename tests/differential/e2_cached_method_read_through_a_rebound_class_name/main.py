"""Class 2, across modules: the name another class is imported under is bound again (`Plain = Rotary`),
so `hits(Plain.table)` may read the cached method's own cache: a name bound twice is not what its import
says."""
# expect: refused: uses it as `hits(Plain.table)`
# codemod: --runtime import --unsafe-fixes
from pkg.tables import Plain, Rotary

if Plain.__name__ == "Plain":
    Plain = Rotary


def hits(method) -> int:
    return method.cache_info().hits


def main() -> None:
    r = Rotary()
    print(r.table(3).tolist(), r.table(3).tolist(), hits(Plain.table))
