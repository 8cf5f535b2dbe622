"""The runtime census: which objects a piece of code created are still held by the long-lived state of some
packages once it is done (``measure.py``), how the heap is walked (``heap.py``), how a pin is named
(``pin_paths.py``) and what it keeps (``tensor_bytes.py``), the report (``report.py``), and
``pytest --weakglobals`` (``pytest_plugin.py``).

``from flake8_weakglobals.census import census`` is the public entry point. It is resolved on first use, so
that the pytest plugin, loaded by every pytest run, imports none of the census until ``--weakglobals`` asks.
"""
from __future__ import annotations

from typing import Any

__all__ = ["Census", "census"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import measure

        return getattr(measure, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
