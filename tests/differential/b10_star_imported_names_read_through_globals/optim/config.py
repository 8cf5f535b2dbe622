"""Describes the optimizer configuration from the public names of the groups module."""
from . import groups as _groups
from .groups import *  # noqa: F401,F403


def describe() -> dict:
    out = {}
    for name in _groups.__all__:
        value = globals()[name]
        if callable(value):
            continue
        if type(value) is set:
            out[name.lower()] = "set of %d tensors, %d numbers" % (len(value), sum(p.numel() for p in value))
        elif type(value) in (int, float, str):
            out[name.lower()] = value
        else:
            out[name.lower()] = "skipped (%s)" % type(value).__name__
    return out
