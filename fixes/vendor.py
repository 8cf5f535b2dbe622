"""Where the rewritten code imports the runtime from, and the vendored copy that makes it self-contained.

``--runtime vendor`` (the default is ``inline``: ``fixes/inline.py``) copies the parts of ``flake8_weakglobals/runtime/`` that the fixed files use
into the top-level package of each rewritten file as one ``_weakglobals_runtime.py``, with a header naming the tool, its version and
licence, and the file imports it from there. The import must resolve the way the code is imported, so the
package is the one seen from the file's import root, the directory Python has on ``sys.path`` when the code
runs. Going up from the file's directory, as the user sees it (a link to a package is not followed: Python
imports the package by the link's name, from the directory holding the link, and the copy is written
through the link):

- a directory with ``__init__.py`` is a regular package, and the directory above the outermost one is the
  root (``python -m pkg.tool`` and ``import pkg.mod`` both run from there);
- a directory without one is a namespace package (PEP 420), up to the first directory that is a root:
  a project's (``pyproject.toml``, ``setup.py`` or ``setup.cfg``), ``src/`` (the src layout), a directory
  of scripts (one of its files has a ``#!`` line or an ``if __name__ == "__main__":`` block, or imports a
  file beside it by its bare name, ``import common`` next to ``common.py``: ``python dir/script.py`` puts
  that directory first on ``sys.path``, and only there does such an import work), or the working directory;
- a directory whose name is not an identifier cannot be a package, so it is a root.

A file directly in its root (a script, a top-level module) gets the copy beside it. If nothing above the
file is a root, the file's own directory is. Before a file is rewritten, ``runtime_location`` checks with
the import system's own finders (``FileFinder``, searched as ``PathFinder`` searches, with the root first on
the path and the standard library after it; no code of the project is run) that the import resolves from
the root to the copy; if it cannot (``pkg.py`` shadows the namespace package ``pkg/``, a namespace package
named like a standard-library module), the file is refused with the reason.

A file run both ways, as a package's module and with its own directory on ``sys.path`` (a script inside a
package; a test file of a directory without ``__init__.py``, which pytest imports by its bare name in its
prepend and append modes and as ``tests.test_x`` in its importlib mode), gets the copy beside it and a
``try`` of the relative import with the bare one as its ``except ImportError``. A file imported by its bare
name is refused when the project runs it with ``runpy.run_path`` (which puts nothing on ``sys.path``), or
when it is a top-level module of a setuptools distribution whose ``py-modules`` leaves the copy out (the
copy would not be installed with it). An identical copy is left
alone, an older copy of ours is updated, and a file of that name that is not ours is never overwritten.
``--runtime import`` imports ``flake8_weakglobals.runtime`` instead.

The copy is one file assembled from the runtime's parts (``flake8_weakglobals/runtime/``: ``core`` and the
parts that define the names the fixed files import), so that a fix adds only the code it uses. Its
second line names the parts it holds; a later fix that needs another part rewrites the copy with every
part it held and the new one (already-fixed files import them), and a copy from before the split (one file
of every part) is replaced by one holding every part.
"""
from __future__ import annotations

import ast
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
from typing import Iterable, Iterator, Optional

import flake8_weakglobals

from .parts import PARTS, part_code, part_names, with_requirements

VENDORED_MODULE = "_weakglobals_runtime"
_MARK = "# Vendored by flake8-weakglobals"
_PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
_SCRIPT = re.compile(rb"\A#!|^if\s+(?:__name__\s*==\s*(['\"])__main__\1|(['\"])__main__\2\s*==\s*__name__)\s*:", re.MULTILINE)
#: A top-level name an import statement starts with (``import common``, ``from common import x``), at any depth.
_IMPORTED = re.compile(rb"^[ \t]*(?:import|from)[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
_LOADERS = (  # the order CPython's path finder tries them in
    (ExtensionFileLoader, EXTENSION_SUFFIXES),
    (SourceFileLoader, SOURCE_SUFFIXES),
    (SourcelessFileLoader, BYTECODE_SUFFIXES),
)


@dataclass(frozen=True)
class RuntimeLocation:
    module: str  # what the rewritten file imports from
    copy: Optional[Path]  # where the vendored copy must exist; None in import mode
    #: The file is imported both as a package's module and with its own directory on ``sys.path`` (a script
    #: in a package, a test file pytest collects): it tries ``from ._weakglobals_runtime import ...`` and,
    #: on ``ImportError``, ``from _weakglobals_runtime import ...``, with the copy beside it (``module`` is
    #: then the bare name).
    both_ways: bool = False


#: The files pytest collects by default (``python_files``), and its ``conftest.py``.
_PYTEST_FILE = re.compile(r"\A(?:test_.*|.*_test|conftest)\.py\Z")


class Unresolvable(Exception):
    """No import of a vendored copy would resolve from the file's import root; the message says why."""


def runtime_location(path: Path, mode: str) -> RuntimeLocation:
    if mode == "import":
        return RuntimeLocation("flake8_weakglobals.runtime", None)
    root, packages = import_root(path)
    if packages and _runs_from_its_own_directory(seen(path)):
        location = _both_ways(path, root, packages)
    else:
        module = ".".join((*packages[:1], VENDORED_MODULE))
        copy = root.joinpath(*packages[:1], f"{VENDORED_MODULE}.py")
        problem = unresolved(module, copy, root)
        if problem is not None:
            raise Unresolvable(f"the runtime import `{module}` would not resolve from the import root {root}: {problem}")
        location = RuntimeLocation(module, copy)
    if not packages or location.both_ways:  # imported by its bare name: from its own directory only
        assert location.copy is not None
        problem = _run_by_path_from_elsewhere(seen(path)) or (None if packages else _not_shipped(seen(path), root))
        if problem is not None:
            raise Unresolvable(f"the runtime import `{VENDORED_MODULE}` would not resolve: {problem}")
    else:  # a package's module, which another file may still load by its path, as a module of no package
        problem = _run_by_path_from_elsewhere(seen(path), packages[0], root)
        if problem is not None:
            raise Unresolvable(f"the runtime import `{location.module}` would change how it loads: {problem}")
    return location


def _project_root(directory: Path) -> Optional[Path]:
    """The nearest directory at or above ``directory`` with a project file."""
    for candidate in (directory, *directory.parents):
        if any((candidate / name).is_file() for name in _PROJECT_FILES):
            return candidate
    return None


_SKIPPED_DIRECTORIES = {
    ".git", ".hg", ".tox", ".nox", ".venv", "venv", "env", "build", "dist", "__pycache__", "node_modules", "site-packages",
}


@functools.lru_cache(maxsize=None)
def _run_path_callers(project: str, recursive: bool) -> tuple[tuple[str, str], ...]:
    """(path, text) of the project's Python files that load files by path (``_LOADS_BY_PATH``; only those directly in
    ``project`` when it is no marked project, but a directory that may hold anything)."""
    callers = []
    for directory, subdirectories, files in os.walk(project):
        kept = (d for d in subdirectories if recursive and d not in _SKIPPED_DIRECTORIES and not d.startswith("."))
        subdirectories[:] = sorted(kept)
        for name in sorted(files):
            path = os.path.join(directory, name)
            if not name.endswith(".py") or not os.path.isfile(path):  # a FIFO or device named *.py would block
                continue
            try:
                with open(path, encoding="utf-8", errors="replace") as file:
                    text = file.read()
            except OSError:
                continue
            if _LOADS_BY_PATH.search(text):
                callers.append((path, text))
    return tuple(callers)


#: What runs or imports a file by its path, outside the import system's search: as a module of no package.
_PATH_LOADERS = {
    "run_path": "runpy.run_path", "spec_from_file_location": "importlib.util.spec_from_file_location",
    "SourceFileLoader": "importlib.machinery.SourceFileLoader", "exec": "exec",
}
_LOADS_BY_PATH = re.compile(rf"\b({'|'.join(_PATH_LOADERS)})\s*\(")


def loaders_by_path(path: Path, root: Optional[Path] = None) -> Iterator[tuple[str, str, Path]]:
    """``(caller, its text, the directory it is shown from)`` for each file of the project that loads files by
    their path (``_LOADS_BY_PATH``) and names the file at ``path`` or its directory (``EXAMPLES = ROOT /
    "examples"``; ``for script in EXAMPLES.glob("*.py")``): under the project; where no project file marks
    one, under the import ``root`` (or the file's directory) and directly in the directory above it, where a
    runner of a directory of scripts sits."""
    project = _project_root(path.parent)
    base = root or path.parent
    scopes = [(project, True)] if project else [(base, base != path.parent), (base.parent, False)]
    names = re.compile(rf"\b(?:{re.escape(path.name)}|{re.escape(path.parent.name)})\b")
    for scope, recursive in scopes:
        for caller, text in _run_path_callers(str(scope), recursive):
            if caller != str(path) and names.search(text):
                yield caller, text, scope


def _run_by_path_from_elsewhere(path: Path, package: str = "", root: Optional[Path] = None) -> Optional[str]:
    """Why a file the project runs or loads by its path (``runpy.run_path``,
    ``importlib.util.spec_from_file_location``, ``SourceFileLoader``) could not import its copy: loaded so,
    it is a module of no package. Imported by its bare name, the copy is not found (nothing is put on
    ``sys.path``, not even the file's directory, as ``python file.py`` would); imported through its
    ``package``, the import runs that package's ``__init__``, which the load by path never did (or fails).
    The callers are ``loaders_by_path``'s."""
    for caller, text, scope in loaders_by_path(path, root):
        shown = os.path.relpath(caller, scope)
        how = _PATH_LOADERS[_LOADS_BY_PATH.search(text).group(1)]  # type: ignore[union-attr]
        if package:
            return (f"{shown} loads it by its path with {how}, as a module of no package, and the import would run "
                    f"`{package}/__init__.py`, which that load never did; use --runtime inline")
        return f"{shown} runs it with {how}, which puts nothing on sys.path (not even {path.parent.name}/); use --runtime import"
    return None


#: ``py_modules = [...]`` in a setup.py, ``py_modules = ...`` in a setup.cfg.
_PY_MODULES = re.compile(r"\bpy_modules\s*=\s*(\[[^\]]*\]|[^\n]*(?:\n[ \t]+[^\n]*)*)")


def _not_shipped(path: Path, root: Path) -> Optional[str]:
    """Why a copy beside a top-level module would not ship with its distribution: setuptools' ``py-modules``
    names the modules it installs, and the copy must be one of them, as the module is."""
    listed: Optional[str] = None
    where = ""
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            import tomllib

            table = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {}).get("setuptools", {})
        except (ImportError, OSError, ValueError):
            table = {}
        if isinstance(table.get("py-modules"), list):
            listed, where = " ".join(map(str, table["py-modules"])), "pyproject.toml ([tool.setuptools] py-modules)"
    for name in ("setup.cfg", "setup.py"):
        if listed is None and (root / name).is_file():
            try:
                match = _PY_MODULES.search((root / name).read_text(encoding="utf-8", errors="replace"))
            except OSError:
                match = None
            if match is not None:
                listed, where = match.group(1), f"{name} (py_modules)"
    if listed is None:
        return None
    modules = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", listed))
    if path.stem not in modules or VENDORED_MODULE in modules:
        return None
    return (f"the distribution ships only the modules {where} lists, which name `{path.stem}` and not "
            f"`{VENDORED_MODULE}`: add it there, or use --runtime import")


def _runs_from_its_own_directory(path: Path) -> bool:
    """Whether a file inside a package is also run with its own directory first on ``sys.path``: a script
    (``#!``, a ``__main__`` block: ``python tools/x.py`` as well as ``python -m tools.x``), or a test file
    of a directory without ``__init__.py``, which pytest imports by its bare name in its prepend and append
    import modes and as ``tests.test_x`` in its importlib mode. No one import works both ways."""
    if _PYTEST_FILE.match(path.name) and not (path.parent / "__init__.py").is_file():
        return True
    try:
        with open(path, "rb") as file:
            return _SCRIPT.search(file.read()) is not None
    except OSError:
        return False


def _both_ways(path: Path, root: Path, packages: tuple[str, ...]) -> RuntimeLocation:
    """The copy beside the file, imported relatively (``pkg.tools._weakglobals_runtime``, from ``root``)
    or, failing that, by its bare name (from the file's own directory); both must resolve."""
    copy = seen(path).parent / f"{VENDORED_MODULE}.py"
    for module, where in ((".".join((*packages, VENDORED_MODULE)), root), (VENDORED_MODULE, copy.parent)):
        problem = unresolved(module, copy, where)
        if problem is not None:
            raise Unresolvable(f"the runtime import `{module}` would not resolve from the import root {where}: {problem}")
    return RuntimeLocation(VENDORED_MODULE, copy, both_ways=True)


def existing_location(path: Path, module: str) -> RuntimeLocation:
    """Where a file that already imports the runtime from ``module`` gets it: the vendored copy this file's
    import root would use, when that is ``module`` (the copy may then need parts it lacks); else no copy."""
    if module == "flake8_weakglobals.runtime":
        return RuntimeLocation(module, None)
    try:
        location = runtime_location(path, "vendor")
    except Unresolvable:
        return RuntimeLocation(module, None)
    return location if location.module == module else RuntimeLocation(module, None)


def import_root(path: Path) -> tuple[Path, tuple[str, ...]]:
    """The directory ``path`` is imported from, and the packages between it and the file (outermost first)."""
    directory = seen(path).parent
    here = Path.cwd()
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
            return seen(path).parent, ()
    return directory, tuple(reversed(packages))


def seen(path: Path) -> Path:
    """``path`` made absolute as the user sees it: a link to a package is not followed (Python imports the
    package by the link's name, from the directory holding the link), ``..`` is taken lexically."""
    return Path(os.path.abspath(path))


def _is_root(directory: Path, here: Path) -> bool:
    """A directory without ``__init__.py`` that is on ``sys.path`` rather than a namespace package."""
    return (
        _same(directory, here)
        or directory.name == "src"
        or any((directory / name).is_file() for name in _PROJECT_FILES)
        or _holds_a_script(str(directory))
    )


@functools.lru_cache(maxsize=None)
def _holds_a_script(directory: str) -> bool:
    """Whether a Python file directly in ``directory`` is meant to be run as ``python directory/file.py``:
    it says so (a ``#!`` line, a ``__main__`` block), or it imports a module beside it by its bare name,
    which resolves only with ``directory`` itself on ``sys.path`` (in a namespace package it would be
    ``from . import common`` or ``import pkg.common``)."""
    try:
        names = [entry.path for entry in os.scandir(directory) if entry.name.endswith(".py") and entry.is_file()]
    except OSError:
        return False
    siblings = {os.path.basename(name)[:-3].encode() for name in names}
    for name in names:
        try:
            with open(name, "rb") as file:
                text = file.read()
        except OSError:
            continue
        if _SCRIPT.search(text):
            return True
        own = os.path.basename(name)[:-3].encode()
        if any(imported in siblings and imported != own for imported in _IMPORTED.findall(text)):
            return True
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
            return f"`{package}` is {found}, not the package {copy.parents[len(parts) - 1 - depth]}"
        locations = list(spec.submodule_search_locations)
        expected = copy.parents[len(parts) - 1 - depth]  # the package's directory, above the copy's own
        if not any(_same(location, expected) for location in locations):
            where = spec.origin if spec.origin not in (None, "namespace") else ", ".join(locations)
            return f"`{package}` is {where}, not the package {expected}"
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


#: A copy's second line names the parts it holds; a copy without it (one file of every part, before the
#: runtime was split) holds them all.
_PARTS_LINE = re.compile(r"^# Parts: ([a-z, ]+)(?:\.|$)", re.MULTILINE)
_ALL_LINE = re.compile(r"^__all__ = (\[[^\]\n]*\])$", re.MULTILINE)  # the public names, as ``vendored_text`` writes them


def copied_parts(text: str) -> tuple[str, ...]:
    """The parts an existing copy of ours holds: those its second line names, and those whose names its
    ``__all__`` lists (``StrictWeakIdMap`` was in ``maps`` before it became ``strictmaps``); every part,
    for a copy from before the split."""
    match = _PARTS_LINE.search(text.split("\n", 3)[1] if text.count("\n") > 1 else "")
    if match is None:
        return tuple(PARTS)
    held = {part.strip() for part in match.group(1).split(",")}
    listed = _ALL_LINE.search(text)
    exported = set(ast.literal_eval(listed.group(1))) if listed else set()
    held |= {part for part, names in part_names().items() if names and exported >= set(names)}
    return tuple(part for part in PARTS if part in held)


def vendored_text(parts: Iterable[str] = ()) -> str:
    """One file holding ``parts`` of the runtime (with ``core``; every part when none is named): a header,
    the standard-library imports of all of them, then each part's code as written, without its own imports."""
    chosen = with_requirements(tuple(parts) or PARTS)
    header = (
        f"{_MARK} {flake8_weakglobals.__version__} (MIT licence) from flake8_weakglobals/runtime/, documented there.\n"
        f"# Parts: {', '.join(chosen)}. Do not edit: `python -m fixes.apply` rewrites it to add parts.\n"
        "# flake8: noqa\n# ruff: noqa\n# fmt: off\n# isort: skip_file\n"
        "from __future__ import annotations\n\n"
    )
    imports: dict[str, set[str]] = {}
    for part in chosen:
        for module, imported in part_code(part).imports.items():
            imports.setdefault(module, set()).update(imported)
    preamble = "".join(
        "".join(f"import {name}\n" for name in sorted(imports[module])) if module == "" else f"from {module} import {', '.join(sorted(imports[module]))}\n"
        for module in sorted(imports, key=lambda module: (module != "", module))
    )
    names = sorted(name for part in chosen for name in part_names()[part])
    bodies = "\n\n".join(f"# --- {part}: {part_code(part).summary}\n{part_code(part).body}" for part in chosen)
    return f"{header}{preamble}\n__all__ = {names!r}\n\n\n{bodies}"


def vendored_lines(text: str) -> int:
    return text.count("\n")


@dataclass(frozen=True)
class CopyPlan:
    """What a vendored copy must become: ``action`` "create" or "update" (None: an identical copy is
    there), holding ``parts`` (those it held, and those newly needed), as ``text``."""

    action: Optional[str]
    parts: tuple[str, ...]
    text: str
    added_lines: int  # lines the fix adds to the project: the copy's, less those of the copy it replaces


class VendorConflict(Exception):
    """A file with the vendored name exists and was not written by this tool."""


def plan_copy(destination: Path, parts: Iterable[str]) -> CopyPlan:
    """The copy at ``destination`` once it holds ``parts`` too; raises ``VendorConflict`` for a file of that
    name that is not ours. An existing copy keeps every part it held: already-fixed files import them."""
    if not destination.exists():
        text = vendored_text(with_requirements(parts))
        return CopyPlan("create", copied_parts(text), text, vendored_lines(text))
    current = destination.read_text(encoding="utf-8")
    if not current.startswith(_MARK):
        raise VendorConflict(f"{destination} exists and was not written by flake8-weakglobals; not overwriting it")
    held = set(copied_parts(current)) | set(parts)
    text = vendored_text(part for part in PARTS if part in held)
    action = None if current == text else "update"
    return CopyPlan(action, copied_parts(text), text, vendored_lines(text) - vendored_lines(current))


def copy_needed(destination: Path, parts: Iterable[str] = ()) -> Optional[str]:
    """``"create"`` or ``"update"`` when the copy must be written, None when an identical copy is there."""
    return plan_copy(destination, parts).action
