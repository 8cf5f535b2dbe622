import sys


def audit(modname):
    s = sys.modules[modname].__dict__["_SEEN"]
    print("is set:", isinstance(s, set), type(s) is set)
    frozen = frozenset(s)
    print("frozen eq:", frozen == s, len(frozen))
    s2 = s | set()
    print("union kind:", type(s2).__name__, len(s2))
