"""Starts a fresh probing session by reloading the probe module, and reports what state it reset."""
import importlib
import sys

_MUTABLE = (list, dict, set)


def _module(leaf: str):
    return sys.modules["%s.%s" % (__package__, leaf)]


def snapshot(leaf: str) -> dict:
    state = vars(_module(leaf))
    return {k: len(v) for k, v in state.items() if type(v) in _MUTABLE and not k.startswith("__")}


def restart(leaf: str) -> list:
    before = snapshot(leaf)
    importlib.reload(_module(leaf))
    after = snapshot(leaf)
    return ["%s: %d -> %d" % (k, before[k], after.get(k, 0)) for k in sorted(before)]
