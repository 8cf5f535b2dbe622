"""Where the rewritten code imports the runtime from, and the vendored copy that makes it self-contained.

``--runtime vendor`` (the default) copies ``flake8_weakglobals/runtime.py`` once into the top-level package
of each rewritten file as ``_weakglobals_runtime.py``, with a header naming the tool, its version and
licence, and the file imports it from there. The import must resolve the way the code is imported, so the
package is the one seen from the file's import root, the directory Python has on ``sys.path`` when the code
runs. Going up from the file's directory:

- a directory with ``__init__.py`` is a regular package, and the directory above the outermost one is the
  root (``python -m pkg.tool`` and ``import pkg.mod`` both run from there);
- a directory without one is a namespace package (PEP 420), up to the first directory that is a root:
  a project's (``pyproject.toml``, ``setup.py`` or ``setup.cfg``), ``src/`` (the src layout), a directory
  of scripts (one of its files has a ``#!`` line or an ``if __name__ == "__main__":`` block: ``python
  dir/script.py`` puts that directory first on ``sys.path``), or the working directory;
- a directory whose name is not an identifier cannot be a package, so it is a root.

A file directly in its root (a script, a top-level module) gets the copy beside it. If nothing above the
file is a root, the file's own directory is. Before a file is rewritten, ``runtime_location`` checks with
the import system's own finders (``FileFinder``, searched as ``PathFinder`` searches, with the root first on
the path and the standard library after it; no code of the project is run) that the import resolves from
the root to the copy; if it cannot (``pkg.py`` shadows the namespace package ``pkg/``, a namespace package
named like a standard-library module), the file is refused with the reason. An identical copy is left
alone, an older copy of ours is updated, and a file of that name that is not ours is never overwritten.
``--runtime import`` imports ``flake8_weakglobals.runtime`` instead.
"""
from __future__ import annotations

import functools
import keyword
import os
import re
import sys
import sysconfig
from dataclasses import dataclass
from importlib.machinery import (
    BYTECODE_SUFFIXES,
    EXTENSION_SUFFIXES,
    SOURCE_SUFFIXES,
    ExtensionFileLoader,
    FileFinder,
    ModuleSpec,
    SourceFileLoader,
    SourcelessFileLoader,
)
from pathlib import Path
from typing import Optional

import flake8_weakglobals
import flake8_weakglobals.runtime

VENDORED_MODULE = "_weakglobals_runtime"
_MARK = "# Vendored by flake8-weakglobals"
_PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
_SCRIPT = re.compile(rb"\A#!|^if\s+(?:__name__\s*==\s*(['\"])__main__\1|(['\"])__main__\2\s*==\s*__name__)\s*:", re.MULTILINE)
_LOADERS = (  # the order CPython's path finder tries them in
    (ExtensionFileLoader, EXTENSION_SUFFIXES),
    (SourceFileLoader, SOURCE_SUFFIXES),
    (SourcelessFileLoader, BYTECODE_SUFFIXES),
)


@dataclass(frozen=True)
class RuntimeLocation:
    module: str  # what the rewritten file imports from
    copy: Optional[Path]  # where the vendored copy must exist; None in import mode


class Unresolvable(Exception):
    """No import of a vendored copy would resolve from the file's import root; the message says why."""


def runtime_location(path: Path, mode: str) -> RuntimeLocation:
    if mode == "import":
        return RuntimeLocation("flake8_weakglobals.runtime", None)
    root, packages = import_root(path)
    module = ".".join((*packages[:1], VENDORED_MODULE))
    copy = root.joinpath(*packages[:1], f"{VENDORED_MODULE}.py")
    problem = unresolved(module, copy, root)
    if problem is not None:
        raise Unresolvable(f"the runtime import `{module}` would not resolve from the import root {root}: {problem}")
    return RuntimeLocation(module, copy)


def import_root(path: Path) -> tuple[Path, tuple[str, ...]]:
    """The directory ``path`` is imported from, and the packages between it and the file (outermost first)."""
    directory = path.resolve().parent
    here = Path.cwd().resolve()
    packages: list[str] = []
    regular = False
    while directory.parent != directory:
        if not directory.name.isidentifier() or keyword.iskeyword(directory.name):
            break
        if (directory / "__init__.py").is_file():
            regular = True
        elif regular or _is_root(directory, here):
            break
        packages.append(directory.name)
        directory = directory.parent
    else:
        if not regular:  # nothing above the file says where it is imported from: its own directory
            return path.resolve().parent, ()
    return directory, tuple(reversed(packages))


def _is_root(directory: Path, here: Path) -> bool:
    """A directory without ``__init__.py`` that is on ``sys.path`` rather than a namespace package."""
    return (
        directory == here
        or directory.name == "src"
        or any((directory / name).is_file() for name in _PROJECT_FILES)
        or _holds_a_script(str(directory))
    )


@functools.lru_cache(maxsize=None)
def _holds_a_script(directory: str) -> bool:
    """Whether a Python file directly in ``directory`` is meant to be run as ``python directory/file.py``."""
    try:
        names = [entry.path for entry in os.scandir(directory) if entry.name.endswith(".py") and entry.is_file()]
    except OSError:
        return False
    for name in names:
        try:
            with open(name, "rb") as file:
                if _SCRIPT.search(file.read()):
                    return True
        except OSError:
            continue
    return False


def unresolved(module: str, copy: Path, root: Path) -> Optional[str]:
    """Why ``import module``, with ``root`` first on ``sys.path``, would not load ``copy`` (which may not
    exist yet); None when it would. Only the standard library follows ``root``: it is there whatever the
    environment, and its regular packages win over a namespace package anywhere on the path."""
    parts = module.split(".")
    if parts[0] in sys.builtin_module_names:
        return f"`{parts[0]}` is a module built into Python"
    locations = [str(root), *_standard_library()]
    for depth in range(1, len(parts)):
        package = ".".join(parts[:depth])
        spec = _find(package, locations)
        if spec is None or spec.submodule_search_locations is None:
            found = f"the module {spec.origin}" if spec is not None else "nothing"
            return f"`{package}` is {found}, not the package {copy.parent}"
        locations = list(spec.submodule_search_locations)
        if not any(_same(location, copy.parent) for location in locations):
            where = spec.origin if spec.origin not in (None, "namespace") else ", ".join(locations)
            return f"`{package}` is {where}, not the package {copy.parent}"
    found = _find(module, locations)
    if found is not None and found.loader is not None and not _same(str(found.origin), copy):
        return f"`{module}` is {found.origin}, which would be imported instead of the copy"
    return None


def _find(name: str, locations: list[str]) -> Optional[ModuleSpec]:
    """``PathFinder``'s search over ``locations``, with fresh finders (no caches, nothing imported): the first
    module or regular package wins, else every namespace portion makes one package."""
    portions: list[str] = []
    for location in locations:
        spec = FileFinder(location, *_LOADERS).find_spec(name)
        if spec is None:
            continue
        if spec.loader is not None:
            return spec
        portions.extend(spec.submodule_search_locations or ())
    if not portions:
        return None
    spec = ModuleSpec(name, None, is_package=True)
    spec.submodule_search_locations = portions
    return spec


def _standard_library() -> list[str]:
    paths = sysconfig.get_paths()
    stdlib = [paths["stdlib"], paths["platstdlib"], os.path.join(paths["platstdlib"], "lib-dynload")]
    return [path for path in dict.fromkeys(stdlib) if os.path.isdir(path)]


def _same(first: str | Path, second: str | Path) -> bool:
    return os.path.realpath(first) == os.path.realpath(second)


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
