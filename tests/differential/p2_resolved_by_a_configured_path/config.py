"""Resolves the objects a run configuration names, `module:attribute` style."""
import json
import pkgutil

DEFAULTS = {"table": "acts.table:ACTIVATIONS"}


def resolve(role: str):
    return pkgutil.resolve_name(DEFAULTS[role])


def dump(role: str) -> str:
    target = resolve(role)
    if isinstance(target, dict):
        return json.dumps({type(k).__name__: v for k, v in target.items()}, sort_keys=True)
    return "<%s>" % type(target).__name__
