import importlib

NAMES = ("fast",)


def load(name: str):
    return importlib.import_module(f"{__name__}.{name}")


def reset() -> int:
    cleared = 0
    for name in NAMES:
        cache = getattr(load(name), "PLANS", None)
        if isinstance(cache, dict):
            cleared += len(cache)
            cache.clear()
    return cleared
