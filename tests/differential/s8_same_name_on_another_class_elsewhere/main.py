"""§6 across modules: another module reads the cache of another class's method of the same name
(`hits(Plain.table)`, `hits(PlainChild.table)`): a project class named directly, not derived from the
cached method's class, reaches its own method, never the cached one."""
# expect: fixed
# codemod: --runtime import --unsafe-fixes
from pkg.tables import Plain, PlainChild, Rotary


def hits(method) -> int:
    return method.cache_info().hits


def main() -> None:
    r = Rotary()
    print(r.table(3).tolist(), r.table(3).tolist())
    p = Plain()
    print(p.table(2), p.table(2), hits(Plain.table), hits(PlainChild.table))
    Plain.table.cache_clear()
    print(Plain.table.cache_info().currsize)
