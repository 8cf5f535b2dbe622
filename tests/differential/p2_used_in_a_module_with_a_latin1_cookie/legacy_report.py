# -*- coding: latin-1 -*-
"""Legacy report module (author: J. Müller, 2011). Kept in its original encoding."""
import json

from acts import table


def report() -> str:
    # Müller: the table used to be a plain dict, and the report format depends on it
    if isinstance(table.ACTIVATIONS, dict):
        return json.dumps(sorted(table.ACTIVATIONS.values()))
    return "table is a %s" % type(table.ACTIVATIONS).__name__
