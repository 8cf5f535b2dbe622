import importlib


def reset(module_name: str) -> list:
    """Empties every dict global of a module, found by name: what a test fixture does between cases."""
    module = importlib.import_module(module_name)
    cleared = []
    for name in dir(module):
        value = getattr(module, name)
        if type(value) is dict and not name.startswith("_"):
            value.clear()
            cleared.append(name)
    return cleared
