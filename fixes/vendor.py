"""Where the rewritten code imports the runtime from, and the vendored copy that makes it self-contained.

``--runtime vendor`` (the default) copies ``flake8_weakglobals/runtime.py`` once into the top-level package
of each rewritten file (found by walking up ``__init__.py`` files) as ``_weakglobals_runtime.py``, with a
header naming the tool, its version and licence; a file outside any package gets the copy beside it. An
identical copy is left alone, an older copy of ours is updated, and a file of that name that is not ours
is never overwritten. ``--runtime import`` imports ``flake8_weakglobals.runtime`` instead.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import flake8_weakglobals
import flake8_weakglobals.runtime

VENDORED_MODULE = "_weakglobals_runtime"
_MARK = "# Vendored by flake8-weakglobals"


@dataclass(frozen=True)
class RuntimeLocation:
    module: str  # what the rewritten file imports from
    copy: Optional[Path]  # where the vendored copy must exist; None in import mode


def runtime_location(path: Path, mode: str) -> RuntimeLocation:
    if mode == "import":
        return RuntimeLocation("flake8_weakglobals.runtime", None)
    top = top_package(path)
    if top is None:
        return RuntimeLocation(VENDORED_MODULE, path.parent / f"{VENDORED_MODULE}.py")
    return RuntimeLocation(f"{top.name}.{VENDORED_MODULE}", top / f"{VENDORED_MODULE}.py")


def top_package(path: Path) -> Optional[Path]:
    """The outermost directory of the chain of packages (``__init__.py``) that contains ``path``."""
    directory, top = path.resolve().parent, None
    while (directory / "__init__.py").is_file():
        top, directory = directory, directory.parent
    return top


def vendored_text() -> str:
    header = (
        f"{_MARK} {flake8_weakglobals.__version__} (MIT licence), from flake8_weakglobals/runtime.py.\n"
        "# Do not edit: `python -m fixes.apply` replaces this copy when a newer runtime ships.\n"
        "# Vendored code, left alone by linters and formatters:\n"
        "# flake8: noqa\n# ruff: noqa\n# fmt: off\n# isort: skip_file\n"
    )
    return header + Path(flake8_weakglobals.runtime.__file__).read_text(encoding="utf-8")


class VendorConflict(Exception):
    """A file with the vendored name exists and was not written by this tool."""


def copy_needed(destination: Path) -> Optional[str]:
    """``"create"`` or ``"update"`` when the copy must be written, None when an identical copy is there."""
    if not destination.exists():
        return "create"
    current = destination.read_text(encoding="utf-8")
    if not current.startswith(_MARK):
        raise VendorConflict(f"{destination} exists and was not written by flake8-weakglobals; not overwriting it")
    return None if current == vendored_text() else "update"
