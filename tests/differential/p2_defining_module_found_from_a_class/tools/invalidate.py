import sys


def invalidate(model) -> list:
    """Empties the upper-case dict globals of every module that defines a layer of ``model``."""
    dropped = []
    for layer in model.modules():
        home = sys.modules[type(layer).__module__]
        for name, value in vars(home).items():
            if name.isupper() and isinstance(value, dict) and value:
                value.clear()
                dropped.append(f"{home.__name__}.{name}")
    return sorted(set(dropped))
