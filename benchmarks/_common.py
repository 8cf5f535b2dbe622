"""What the benchmark scripts share: where installed packages live, and a stopwatch."""
from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from typing import Callable


def installed_package(name: str) -> Path:
    """The directory of an installed package, found without importing it."""
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.submodule_search_locations, f"{name} is not installed"
    return Path(next(iter(spec.submodule_search_locations)))


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def best(run: Callable[[], object], repeat: int = 3) -> float:
    """The fastest of ``repeat`` runs, in seconds: the least disturbed by the rest of the machine."""
    return min(timed(run) for _ in range(repeat))
