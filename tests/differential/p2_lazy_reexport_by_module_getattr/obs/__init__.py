"""Names are resolved on first access (PEP 562): the submodules import torch hooks lazily."""
_LAZY = {"NAN_PARAMS": ".nans", "scan": ".nans"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
