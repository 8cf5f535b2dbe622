"""Trial support: a module calls track() once and its mutable globals can then be checkpointed and rolled back."""
import copy
import sys

_TRACKED = []
_SAVED = []


def track() -> None:
    # the caller's namespace: whichever module called track() at import time
    _TRACKED.append(sys._getframe(1).f_globals)


def checkpoint() -> int:
    _SAVED.clear()
    for namespace in _TRACKED:
        saved = {}
        for name, value in namespace.items():
            if not name.startswith("_") and type(value) in (dict, list, set):
                saved[name] = copy.copy(value)
        _SAVED.append((namespace, saved))
    return sum(len(saved) for _, saved in _SAVED)


def rollback() -> None:
    for namespace, saved in _SAVED:
        namespace.update(saved)
