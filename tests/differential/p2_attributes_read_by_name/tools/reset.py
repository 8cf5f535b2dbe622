import importlib


def reset_state() -> list:
    """Empties every public dict global of the state module: what a test fixture does between cases."""
    module = importlib.import_module("tools.state")
    cleared = []
    for name in dir(module):
        value = getattr(module, name)
        if type(value) is dict and not name.startswith("_"):
            value.clear()
            cleared.append(name)
    return cleared
