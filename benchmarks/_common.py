"""What the benchmark scripts share: where installed packages live, and a stopwatch."""
from __future__ import annotations

import compileall
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Callable, Optional


def installed_package(name: str) -> Path:
    """The directory of an installed package, found without importing it."""
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.submodule_search_locations, f"{name} is not installed"
    return Path(next(iter(spec.submodule_search_locations)))


def compiled_as_installed() -> None:
    """Writes the bytecode of the tool's own modules, as ``pip install`` does, before a benchmark starts
    fresh interpreters. From a checkout with ``PYTHONDONTWRITEBYTECODE`` set, every run compiled all its
    modules again from source (0.2-0.3 s of CPU, counted against the tool and never paid once installed)."""
    root = Path(__file__).resolve().parents[1]
    for package in ("flake8_weakglobals", "fixes"):
        compileall.compile_dir(root / package, quiet=1)


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def best(run: Callable[[], object], repeat: int = 3) -> float:
    """The fastest of ``repeat`` runs, in seconds: the least disturbed by the rest of the machine."""
    return min(timed(run) for _ in range(repeat))


def one_file_runtime(revision: str) -> Optional[ModuleType]:
    """The one-file runtime (``flake8_weakglobals/runtime.py``) of commit ``revision``, loaded from git as
    ``runtime_before``, so that a benchmark times it beside today's in one run; None when git cannot show it."""
    done = subprocess.run(["git", "show", f"{revision}:flake8_weakglobals/runtime.py"], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[1])
    if done.returncode != 0:
        return None
    path = Path(tempfile.mkdtemp()) / "runtime_before.py"
    path.write_text(done.stdout)
    spec = importlib.util.spec_from_file_location("runtime_before", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["runtime_before"] = module
    spec.loader.exec_module(module)
    return module
