"""Exports named pieces of the package's state; the names come from the export spec."""
import copy
import operator

import acts

SPEC = ("table.ACTIVATIONS",)


def export() -> dict:
    out = {}
    for path in SPEC:
        value = operator.attrgetter(path)(acts)
        out[path] = copy.copy(value) if isinstance(value, dict) else None
    return out
