"""Writes a JSON run report; the state it includes is named by dotted paths relative to the package."""
import importlib
import json
import operator

_SECTIONS = {"frozen": ("freezing", "FROZEN")}


def _encode(obj):
    if isinstance(obj, (set, frozenset)):
        return sorted(type(m).__name__ for m in obj)
    return "<%s>" % type(obj).__name__


def run_report(step: int) -> str:
    package = importlib.import_module(__package__)
    body = {"step": step}
    for key, parts in _SECTIONS.items():
        body[key] = operator.attrgetter(".".join(parts))(package)
    return json.dumps(body, default=_encode, sort_keys=True)
