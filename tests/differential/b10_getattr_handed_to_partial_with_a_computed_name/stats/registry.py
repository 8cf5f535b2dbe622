"""Named getters for the state a checkpoint carries, one per sibling module."""
import functools
import importlib

_SOURCES = ("counters:calls",)

GETTERS = {}
for _spec in _SOURCES:
    _leaf, _key = _spec.split(":")
    GETTERS[_key] = functools.partial(getattr, importlib.import_module("." + _leaf, __package__), _key.upper())


def collect() -> dict:
    return {key: get() for key, get in GETTERS.items()}
