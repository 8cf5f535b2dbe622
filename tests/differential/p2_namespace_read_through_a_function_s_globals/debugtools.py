"""Debug helpers: a snapshot of the dict state a function works with, taken from the function itself."""
import json


def state_of(fn) -> dict:
    namespace = fn.__globals__
    return {
        name: {type(k).__name__: v for k, v in value.items()}
        for name, value in namespace.items()
        if isinstance(value, dict) and not name.startswith("__")
    }


def dump_state(fn) -> str:
    return json.dumps(state_of(fn), sort_keys=True)
