"""The project index: what the other modules of the checked file's project define, read lazily.

It sits below the analysis and knows nothing of rules. It finds a project's modules, builds each one's
summary (``summaries.py``) on first use, keeps it on disk, and answers questions by following re-exports,
star imports and base classes through them.

Resolution is forward only: a checked file asks about the names it imports (and follows re-exports and base
classes through the modules they lead to), never about who imports it. So per-file flake8 stays per-file,
and a check costs at most one parse per project module it reaches, bounded by ``_MAX_HOPS`` per question.
Summaries are cached on disk by path, size and modification time, as mypy and pylint cache theirs: a
changed file is summarised again, so a stale entry is never used. The cache is an optimisation only: a
read-only tree, an unwritable cache directory or a corrupt entry just means summarising again.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import sys
import tempfile
import warnings
from contextlib import contextmanager
from importlib.machinery import PathFinder
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Iterator, Optional, TypeVar

from ..source import parse_once
from . import summaries
from .import_lines import import_statements
from .summaries import ModuleSummary, absolute, emptied_by, module_level_instances, stored_later_by, summarize

#: Entries are valid only for the summariser that wrote them: its own source is part of the key.
_FORMAT = hashlib.blake2b(Path(summaries.__file__).read_bytes(), digest_size=8).hexdigest()
_Read = TypeVar("_Read")  # what a question read on demand makes of a module
_MAX_HOPS = 12  # re-exports and base classes followed per question: cycles and huge chains stay bounded
_MAX_FILE_BYTES = 2_000_000  # generated giants are not worth a parse to answer about one name
_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
CACHE_DIRECTORY_VARIABLE = "WEAKGLOBALS_CACHE_DIR"
NO_CACHE_VARIABLE = "WEAKGLOBALS_NO_CACHE"
#: The run that only reads, if one is under way (``files_stay_put``): its number, else 0.
_READING_RUN = 0
#: Whether summaries may be written to the disk cache (not in a dry run of the codemod: ``cache_read_only``)
_CACHE_WRITABLE = True
_RUNS_SO_FAR = 0


@contextmanager
def files_stay_put() -> Iterator[None]:
    """For the length of a run that writes nothing (the linter's command, the codemod's ``--check`` and
    ``--diff``): the files it reads stay as they are, so a module's file is looked at once (one ``stat``),
    not on every question that reaches it, and where a name leads through re-exports is worked out once.
    Over torch, DeepSpeed and transformers that was 73,000 of the lint's 103,000 ``stat`` calls and 95% of
    its re-export walks. A run that rewrites the files it reads never runs under it; each run is numbered,
    so nothing kept in one is trusted in the next."""
    global _READING_RUN, _RUNS_SO_FAR
    _RUNS_SO_FAR += 1
    _READING_RUN = _RUNS_SO_FAR
    try:
        yield
    finally:
        _READING_RUN = 0


@contextmanager
def cache_read_only() -> Iterator[None]:
    """For the codemod's dry runs (``--diff``, ``--check``), which promise to write nothing: the summary
    cache is read, never written (workers forked meanwhile inherit it)."""
    global _CACHE_WRITABLE
    _CACHE_WRITABLE = False
    try:
        yield
    finally:
        _CACHE_WRITABLE = True


def _parse(path: Path) -> Optional[tuple[ast.Module, str]]:
    """The tree and text of another module of the project, or None if it cannot be read or parsed. The
    tree is offered to the run, which checks that module next if it is one of its files."""
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes in someone else's file are not our findings
            tree = ast.parse(text, str(path))
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    parse_once.offer(path, text, tree)
    return tree, text


# --- finding modules -----------------------------------------------------------------------------------


def import_root(path: Path) -> Path:
    """The directory a file's top-level package sits in: up through every directory with ``__init__.py``
    whose name Python can import (a checkout named ``my-repo`` with an ``__init__.py`` is no package)."""
    directory = path.parent
    while (directory / "__init__.py").is_file() and directory.name.isidentifier() and directory.parent != directory:
        directory = directory.parent
    return directory


def project_root(path: Path) -> Optional[Path]:
    """The nearest directory above ``path`` with a project marker, as black and ruff find theirs (each
    directory is looked at once per process: sibling directories share their ancestors' answers)."""
    walked: list[Path] = []
    found: Optional[Path] = None
    for directory in path.parents:
        if directory in _MARKED:
            found = _MARKED[directory]
            break
        walked.append(directory)
        if _marks_a_project(directory):
            found = directory
            break
    for directory in walked:
        _MARKED[directory] = found
    return found


def _marks_a_project(directory: Path) -> bool:
    """Whether ``directory`` holds a project marker. A ``setup.py`` beside an ``__init__.py`` is a module of
    that package (``lib/setup.py``, a set-up step of the code), no marker: the scripts beside the package
    import it, and the codemod must see their uses."""
    present = [marker for marker in _PROJECT_MARKERS if (directory / marker).exists()]
    return bool(present) and (present != ["setup.py"] or not (directory / "__init__.py").exists())


def module_name(path: Path, root: Path) -> Optional[str]:
    try:
        parts = list(path.with_suffix("").relative_to(root).parts)
    except ValueError:
        return None
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) if parts and all(part.isidentifier() for part in parts) else None


class SummaryCache:
    """Summaries on disk, one JSON file per source path, valid while the source's size and mtime match.

    Writes are atomic (a temporary file renamed over the entry), so parallel checks (``flake8 -j``) never
    read half an entry; any failure to read or write is ignored, the summary is simply rebuilt."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def load(self, path: Path, stamp: tuple[int, int]) -> Optional[ModuleSummary]:
        try:
            entry = json.loads(self._entry(path).read_text(encoding="utf-8"))
            if entry["format"] != _FORMAT or entry["path"] != str(path) or tuple(entry["stamp"]) != stamp:
                return None
            summary = ModuleSummary(**entry["summary"])
            summary.containers = {name: (line, kind) for name, (line, kind) in summary.containers.items()}
            return summary
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def store(self, path: Path, stamp: tuple[int, int], summary: ModuleSummary) -> None:
        if not _CACHE_WRITABLE:
            return
        entry = {"format": _FORMAT, "path": str(path), "stamp": list(stamp), "summary": asdict(summary)}
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            ignore = self.directory / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# created by flake8-weakglobals\n*\n", encoding="utf-8")
            descriptor, temporary = tempfile.mkstemp(dir=self.directory, prefix=".entry.", suffix=".tmp")
            try:
                with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                    json.dump(entry, handle)
                os.replace(temporary, self._entry(path))
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError:
            pass  # a read-only tree: the cache only saves time

    def _entry(self, path: Path) -> Path:
        return self.directory / (hashlib.blake2b(str(path).encode(), digest_size=16).hexdigest() + ".json")


def default_cache(project: Optional[Path]) -> Optional[SummaryCache]:
    """``$WEAKGLOBALS_CACHE_DIR``, else ``.weakglobals_cache`` in the project root (as ruff and mypy keep
    theirs). Code outside any project (an installed package in site-packages) gets no disk cache: we never
    write into a tree that is not the user's project."""
    if os.environ.get(NO_CACHE_VARIABLE):
        return None
    configured = os.environ.get(CACHE_DIRECTORY_VARIABLE)
    if configured:
        return SummaryCache(Path(configured))
    return SummaryCache(project / ".weakglobals_cache") if project is not None else None


class ProjectIndex:
    """Module summaries of one project, found under its import roots and built (or loaded) on first use."""

    def __init__(
        self, roots: list[Path], cache: Optional[SummaryCache], project: Optional[Path] = None, package: str = ""
    ) -> None:
        self.roots = roots
        self.project = project  # the directory with the project's marker, if any
        self.package = package  # when set, the one top-level package this index knows (an installed one)
        self.cache = cache
        self._files: dict[str, Optional[tuple[Path, bool]]] = {}  # module -> (file, is a package), or None
        self._loaded: dict[Path, tuple[tuple[int, int], Optional[ModuleSummary]]] = {}
        self._looked_at: dict[Path, int] = {}  # a file -> the reading run that last looked at it
        self._located: dict[str, tuple[int, Optional[tuple[ModuleSummary, str]]]] = {}  # in that run
        self._emptying: dict[Path, tuple[tuple[int, int], set[str]]] = {}  # WG005's question, on demand
        self._stored_later: dict[Path, tuple[tuple[int, int], dict[str, list[tuple[str, list[str], int, str, bool, bool]]]]] = {}  # WG011's and WG007's
        self._instances: dict[Path, tuple[tuple[int, int], dict[str, tuple[str, int]]]] = {}  # WG012's
        self._imported_beside: dict[Path, dict[str, frozenset[str]]] = {}  # directory -> file -> modules its imports name

    def module(self, name: str) -> Optional[ModuleSummary]:
        """The summary of module ``name``, rebuilt when its file changed since it was read (one ``stat``)."""
        if name not in self._files:
            self._files[name] = self._find(name)
        found = self._files[name]
        if found is None:
            return None
        path, is_package = found
        loaded = self._loaded.get(path)
        if loaded is not None and _READING_RUN and self._looked_at.get(path) == _READING_RUN:
            return loaded[1]
        try:
            status = path.stat()
        except OSError:
            return None
        stamp = (status.st_size, status.st_mtime_ns)
        if loaded is None or loaded[0] != stamp:
            loaded = self._loaded[path] = (stamp, self._summary(path, stamp, name, is_package))
        self._looked_at[path] = _READING_RUN
        return loaded[1]

    def _find(self, name: str) -> Optional[tuple[Path, bool]]:
        top = name.partition(".")[0]
        if self.package and top != self.package:
            return None  # an installed package is a project of its own: never the distributions beside it
        for root in self.roots:
            base = root.joinpath(*name.split("."))
            for path, is_package in ((base / "__init__.py", True), (base.with_name(base.name + ".py"), False)):
                if path.is_file():
                    return path, is_package
        if self.package or top in _own_tops(self.roots):
            return None
        return installed_module(name)

    def _summary(self, path: Path, stamp: tuple[int, int], name: str, is_package: bool) -> Optional[ModuleSummary]:
        if stamp[0] > _MAX_FILE_BYTES:
            return None
        cached = self.cache.load(path, stamp) if self.cache else None
        if cached is not None and cached.name == name:
            return cached
        parsed = _parse(path)
        if parsed is None:
            return None  # unreadable or invalid elsewhere: that module is unknown, the check goes on
        summary = summarize(parsed[0], name, is_package, parsed[1])
        if self.cache:
            self.cache.store(path, stamp, summary)
        return summary

    def locate(self, qualified: str) -> Optional[tuple[ModuleSummary, str]]:
        """The module that defines ``qualified`` and the name in it, following re-exports (once per name in a
        run that only reads)."""
        if not _READING_RUN:
            return self._locate(qualified)
        kept = self._located.get(qualified)
        if kept is None or kept[0] != _READING_RUN:
            kept = self._located[qualified] = (_READING_RUN, self._locate(qualified))
        return kept[1]

    def _locate(self, qualified: str) -> Optional[tuple[ModuleSummary, str]]:
        for _ in range(_MAX_HOPS):
            owner, _, attribute = qualified.rpartition(".")
            summary = self.module(owner) if owner else None
            if summary is None:
                return None
            target = summary.aliases.get(attribute)
            if target is None:
                star = self._through_stars(summary, attribute)
                if star is None:
                    return summary, attribute
                target = star
            if target == qualified:
                return None
            qualified = target
        return None

    def _through_stars(self, summary: ModuleSummary, attribute: str) -> Optional[str]:
        if attribute in summary.classes or attribute in summary.returns or attribute in summary.returns_tuple or attribute in summary.containers:
            return None
        for star in summary.stars:
            exported = self.module(star)
            if exported is not None and attribute in exported.exports:
                return f"{star}.{attribute}"
        return None

    def resolve(self, qualified: str) -> str:
        """Where ``qualified`` really lives, following the project's re-exports and star imports as far as
        they go: ``pkg.zero.partition_parameters.Module`` is ``torch.nn.Module``."""
        for _ in range(_MAX_HOPS):
            owner, _, attribute = qualified.rpartition(".")
            summary = self.module(owner) if owner else None
            target = None
            if summary is not None:
                target = summary.aliases.get(attribute) or self._through_stars(summary, attribute)
            if target is None or target == qualified:
                return qualified
            qualified = target
        return qualified

    def bases(self, qualified: str) -> Iterator[tuple[str, str]]:
        """``(base, class)`` pairs up the inheritance tree of the project class ``qualified``, nearest first:
        each absolute base name, and the project class that names it."""
        pending, seen = [qualified], set()
        while pending and len(seen) < _MAX_HOPS:
            current = pending.pop(0)
            located = self.locate(current)
            if located is None or current in seen:
                continue
            seen.add(current)
            summary, name = located
            for base in summary.classes.get(name, []):
                yield base, f"{summary.name}.{name}"
                pending.append(base)

    def derives_from(self, qualified: str, ancestor: str) -> Optional[bool]:
        """Whether the project class ``qualified`` is ``ancestor`` or derives from it, all names absolute;
        None when its tree cannot be read to the end: a base in a package of the project that the index
        cannot find or that is no ``class`` statement (it may be ``ancestor`` under a name not followed), a
        base no name gives, or more classes than a question follows. A base outside the project (``torch.nn.Module``) cannot
        derive from a class of it."""
        pending, seen = [self.resolve(qualified)], set()
        while pending:
            current = pending.pop(0)
            if current == ancestor:
                return True
            if current in seen:
                continue
            located = self.locate(current)
            if located is None:
                if self.module(current.partition(".")[0]) is not None:
                    return None  # in a package of the project, yet not found
                continue
            summary, name = located
            if name not in summary.classes or name in summary.unnamed_bases:
                return None  # bound to a class some other way (``Base = make_base()``), or derived from a call
            seen.add(current)
            if len(seen) > _MAX_HOPS:
                return None
            pending.extend(self.resolve(base) for base in summary.classes[name])
        return False

    def is_cache_wrapper(self, qualified: str) -> bool:
        located = self.locate(qualified)
        return located is not None and located[1] in located[0].cache_wrappers

    def stands_for(self, qualified: str) -> list[str]:
        """The types a type variable or a class alias of the project may be (``summaries._type_alias``)."""
        located = self.locate(qualified)
        return located[0].type_aliases.get(located[1], []) if located is not None else []

    def returned_type(self, qualified: str) -> Optional[str]:
        located = self.locate(qualified)
        return located[0].returns.get(located[1]) if located is not None else None

    def returned_tuple(self, qualified: str) -> Optional[list[str]]:
        """The element types of the fixed tuple the project function ``qualified`` is annotated to return."""
        located = self.locate(qualified)
        return located[0].returns_tuple.get(located[1]) if located is not None else None

    def built_type(self, qualified: str) -> Optional[str]:
        """What the project function ``qualified`` calls to build what it returns (``summaries.built_and_returned``),
        or the static or class method of a project class (``pkg.models.Net.build``)."""
        located = self.locate(qualified)
        if located is not None and located[1] in located[0].builds:
            return located[0].builds[located[1]]
        owner, _, method = qualified.rpartition(".")
        cls = self.locate(owner) if owner and located is None else None
        return cls[0].builds.get(f"{cls[1]}.{method}") if cls is not None else None

    def fills(self, qualified: str) -> Optional[list]:
        """Where the project function ``qualified`` stores what it builds into a container it is handed
        (``summaries.filled_parameter``): [position, derivations]."""
        located = self.locate(qualified)
        return located[0].fills.get(located[1]) if located is not None else None

    def returned_model(self, qualified: str) -> Optional[list]:
        """The local the project function ``qualified`` returns and treats as a model (``summaries.returned_model``)."""
        located = self.locate(qualified)
        return located[0].returned_models.get(located[1]) if located is not None else None

    def holdings(self, qualified: str) -> Optional[tuple[str, list[tuple[str, list[str], int]]]]:
        """What the project class ``qualified`` stores on its instances in ``__init__``, with its module."""
        located = self.locate(qualified)
        if located is None or located[1] not in located[0].classes:
            return None
        return located[0].name, located[0].holdings.get(located[1], [])

    def stored_later(self, qualified: str) -> Optional[tuple[str, list[tuple[str, list[str], int, str, bool, bool]]]]:
        """What the project class ``qualified``'s methods other than ``__init__`` store on its instances, or
        into their containers, and never set back (``summaries.stored_later_by``, read on demand), with its
        module."""
        located = self.locate(qualified)
        if located is None or located[1] not in located[0].classes or (found := self._files.get(located[0].name)) is None:
            return None
        return located[0].name, self._on_demand(self._stored_later, found[0], located[0].name, found[1], stored_later_by).get(located[1], [])

    def in_a_regular_package(self, module: str) -> bool:
        """Whether module ``module``'s file is part of a package with an ``__init__.py``: importable by the
        rest of its project, whatever it also does when run as a program."""
        if module not in self._files:
            self._files[module] = self._find(module)
        found = self._files[module]
        return found is not None and (found[1] or (found[0].parent / "__init__.py").is_file())

    def used_by_its_package(self, module: str) -> bool:
        """Whether module ``module`` is library code of a regular package whatever its ``__main__`` block does:
        a package's ``__init__`` (run by every import of the package), or a module that another module of its
        own directory, or of a package directory around it, imports (``from .flexprefill import
        flexprefill_forward``; ``from .kda_kernels.kda_chunked_bt16 import ...`` one level up). A script
        kept in a package directory that nothing there imports (an example's ``train.py``) is not."""
        if not self.in_a_regular_package(module):
            return False
        path, is_package = self._files[module]  # type: ignore[misc]  # found by in_a_regular_package
        if is_package:
            return True
        directory, package = path.parent, module.rpartition(".")[0]
        while package and (directory / "__init__.py").is_file():
            if directory not in self._imported_beside:
                self._imported_beside[directory] = _modules_imported_in(directory, package)
            if any(module in names for other, names in self._imported_beside[directory].items() if directory / other != path):
                return True
            directory, package = directory.parent, package.rpartition(".")[0]
        return False

    def module_level_instance(self, qualified: str) -> Optional[tuple[str, str, int]]:
        """Where the module-level name ``qualified`` is bound at import to an instance of a project class
        (``summaries.module_level_instances``, read on demand), following re-exports: (the class, the module,
        the line)."""
        located = self.locate(qualified)
        if located is None or (found := self._files.get(located[0].name)) is None:
            return None
        bound = self._on_demand(self._instances, found[0], located[0].name, found[1], module_level_instances).get(located[1])
        return (bound[0], located[0].name, bound[1]) if bound is not None and self.is_class(bound[0]) else None

    def kept_parameters(self, qualified: str) -> Optional[tuple[str, list[tuple[str, str, int, int]]]]:
        """What the project class ``qualified``'s ``__init__`` stores straight from its parameters, with its module."""
        located = self.locate(qualified)
        if located is None or located[1] not in located[0].classes:
            return None
        return located[0].name, located[0].kept_parameters.get(located[1], [])

    def compares_by_value(self, qualified: str) -> bool:
        """Whether the project class ``qualified`` or one of its bases (followed through the project) defines
        value equality (``summaries.defines_value_equality``)."""
        for name in (qualified, *(base for base, _ in self.bases(qualified))):
            located = self.locate(name)
            if located is not None and located[1] in located[0].value_equality:
                return True
        return False

    def keeps_created_instances(self, qualified: str) -> bool:
        """Whether the project class ``qualified``'s ``__call__`` keeps what it creates (a singleton metaclass)."""
        located = self.locate(qualified)
        return located is not None and located[1] in located[0].instance_keepers

    def is_class(self, qualified: str) -> bool:
        located = self.locate(qualified)
        return located is not None and located[1] in located[0].classes

    def container(self, qualified: str) -> Optional[tuple[str, str, int, str]]:
        """A module-level or class-level container of a project module: (module, its name there, line,
        ContainerType value)."""
        for summary, name in self._members(qualified):
            found = summary.containers.get(name) or summary.class_containers.get(name)
            if found is not None:
                return summary.name, name, found[0], found[1]
        return None

    def keeper(self, qualified: str) -> Optional[tuple[str, int, str, int, str, str]]:
        """What the project function or static/class method ``qualified`` keeps of its arguments: its
        module, then the summary's keeper entry (``summaries.ModuleSummary.keepers``). ``qualified`` may
        go through a singleton's accessor: ``pkg.optim.Manager.get_instance().register``."""
        qualified, accessed, method = qualified.partition("().")
        for summary, name in self._members(qualified):
            name = f"{name}{accessed}{method}"
            if name in summary.keepers:
                return (summary.name, *summary.keepers[name])
        return None

    def _members(self, qualified: str) -> Iterator[tuple[ModuleSummary, str]]:
        """Where ``qualified`` may be defined: a module's own name, or a member of one of its classes
        (``pkg.state.Store.put`` is ``Store.put`` in ``pkg.state``)."""
        located = self.locate(qualified)
        if located is not None:
            yield located
        owner, _, member = qualified.rpartition(".")
        in_class = self.locate(owner) if owner else None
        if in_class is not None and in_class[1] in in_class[0].classes:
            yield in_class[0], f"{in_class[1]}.{member}"

    def emptied_nearby(self, qualified: str) -> Optional[str]:
        """A module beside the one defining ``qualified`` (same directory) that empties it, if any. Only
        neighbours are read, so the question costs at most one directory of summaries."""
        owner = qualified.rpartition(".")[0]
        found = self._files.get(owner) or self._find(owner)
        if found is None:
            return None
        directory = found[0].parent
        package = owner.rpartition(".")[0] if not found[1] else owner
        try:
            neighbours = sorted(path.stem for path in directory.glob("*.py"))
        except OSError:
            return None
        for stem in neighbours:
            name = package if stem == "__init__" else f"{package}.{stem}" if package else stem
            if name != owner and qualified in self._on_demand(self._emptying, directory / f"{stem}.py", name, stem == "__init__", emptied_by):
                return name
        return None

    def _on_demand(self, table: dict[Path, tuple[tuple[int, int], _Read]], path: Path, name: str, is_package: bool, read: Callable[[ast.Module, str, bool], _Read]) -> _Read:
        """What ``read`` makes of the module at ``path``, kept in ``table`` while the file is unchanged: the
        questions too rare to be part of every summary. An unreadable module answers empty."""
        try:
            status = path.stat()
        except OSError:
            return read(ast.Module(body=[], type_ignores=[]), name, is_package)
        stamp = (status.st_size, status.st_mtime_ns)
        known = table.get(path)
        if known is None or known[0] != stamp:
            parsed = _parse(path) if stamp[0] <= _MAX_FILE_BYTES else None
            known = table[path] = (stamp, read(parsed[0] if parsed else ast.Module(body=[], type_ignores=[]), name, is_package))
        return known[1]

    def star_names(self, module: str, _seen: Optional[set[str]] = None) -> list[tuple[str, str]]:
        """What ``from module import *`` binds, each name with the target the module imported it as (one
        hop: the questions asked later follow the rest, so a star import costs one summary, not one per name),
        then, for a module without ``__all__``, what its own star imports bound (a chain of ``from .x import *``
        passes ``torch`` along)."""
        summary = self.module(module)
        if summary is None:
            return []
        names = [
            (name, summary.aliases.get(name) or self._through_stars(summary, name) or f"{module}.{name}")
            for name in summary.exports
        ]
        seen = _seen if _seen is not None else {module}
        for star in [] if summary.exports_listed else summary.stars:
            if star not in seen and len(seen) < _MAX_HOPS:
                seen.add(star)
                names += [(name, target) for name, target in self.star_names(star, seen) if not name.startswith("_")]
        return names


@dataclass(frozen=True)
class ModuleContext:
    """The checked file's place in its project: its index, its dotted name, whether it is a package."""

    index: ProjectIndex
    name: str
    is_package: bool

    def absolute(self, qualified: str) -> str:
        return absolute(qualified, self.name, self.is_package)


def _modules_imported_in(directory: Path, package: str) -> dict[str, frozenset[str]]:
    """For each module file of ``directory`` (the package ``package``), the absolute names its imports may
    name as modules (``from .flexprefill import f`` names ``package.flexprefill`` and
    ``package.flexprefill.f``), read from its text (``import_lines``): enough to tell whether a file imports
    a module of its package's directories."""
    found: dict[str, frozenset[str]] = {}
    try:
        files = [entry for entry in os.scandir(directory) if entry.name.endswith(".py") and entry.is_file()]
    except OSError:
        return found
    for entry in files:
        try:
            text = Path(entry.path).read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue
        stem = entry.name[: -len(".py")]
        names: set[str] = set()
        for base, members in import_statements(text, f"{package}.{stem}" if package else stem, False):
            names.add(base)
            names.update(f"{base}.{member}" for member in members or ())
        found[entry.name] = frozenset(names)
    return found


def _top_levels(roots: list[Path]) -> frozenset[str]:
    """The top-level names a project's roots define: those are never looked for among installed distributions.
    A directory without ``__init__.py`` is a namespace package only where no installed package of that name
    exists, as Python imports it (a copy of ``torch/`` files in the working directory does not hide torch)."""
    names = set()
    for root in roots:
        try:
            entries = list(os.scandir(root))
        except OSError:
            continue
        for entry in entries:
            name = entry.name.partition(".")[0]
            namespace = name.isidentifier() and entry.is_dir() and not os.path.isfile(os.path.join(entry.path, "__init__.py"))
            if namespace and installed_module(name) is not None:
                continue
            names.add(name)
    return frozenset(names)


_OWN_TOPS: dict[tuple[Path, ...], frozenset[str]] = {}


def _own_tops(roots: list[Path]) -> frozenset[str]:
    """``_top_levels`` of ``roots``, listed once per process: every import the project does not define asks."""
    key = tuple(roots)
    if key not in _OWN_TOPS:
        _OWN_TOPS[key] = _top_levels(roots)
    return _OWN_TOPS[key]
_INSTALLED: dict[str, Optional[tuple[Path, bool]]] = {}
_MAX_INSTALLED_MODULES = 512  # per process: a check reaching into a huge distribution stays bounded


def installed_module(name: str) -> Optional[tuple[Path, bool]]:
    """Where the import system would find the module ``name`` among the distributions installed where the
    linter runs, found with its path finders (``importlib.machinery.PathFinder``), which read directories
    and never run a line of the package (``importlib.util.find_spec`` would import its parents). Only
    Python source counts: a compiled-only module, a namespace directory or anything unreadable is unknown.
    The standard library is never summarised."""
    if name in _INSTALLED:
        return _INSTALLED[name]
    found: Optional[tuple[Path, bool]] = None
    parent, _, _ = name.rpartition(".")
    if parent:
        container = installed_module(parent)
        locations = [str(container[0].parent)] if container is not None and container[1] else None
    else:
        locations = None if name in sys.stdlib_module_names else sys.path
    if locations is not None and len(_INSTALLED) < _MAX_INSTALLED_MODULES:
        try:
            spec = PathFinder.find_spec(name, locations)
        except (ImportError, OSError, ValueError):  # a broken path hook or entry: that module is unknown
            spec = None
        except KeyError:  # a namespace directory inside a package: its parent is looked up in ``sys.modules``
            spec = None
        origin = getattr(spec, "origin", None)
        if origin and origin.endswith(".py") and os.path.isfile(origin):
            found = Path(origin), spec.submodule_search_locations is not None  # type: ignore[union-attr]
    _INSTALLED[name] = found
    return found


INSTALLED_ROOTS = frozenset({"site-packages", "dist-packages"})
_INDEXES: dict[tuple[object, ...], ProjectIndex] = {}
_DIRECTORIES: dict[str, tuple[ProjectIndex, Optional[str]]] = {}  # a directory -> its project's index, its package
_MARKED: dict[Path, Optional[Path]] = {}  # a directory -> the project root above it (``project_root``)


def context_for(path: Path) -> Optional[ModuleContext]:
    """The project context of the file at ``path``; one index per set of roots per process, so that a
    run over a tree (or flake8's worker) summarises each module once. What a directory needs is worked out
    once: its files then cost a ``stat`` and some string slicing each."""
    absolute = os.path.abspath(path)
    if not os.path.isfile(absolute):
        return None  # stdin, a snippet: nothing around it to resolve
    directory, _, filename = absolute.rpartition(os.sep)
    if directory not in _DIRECTORIES:
        _DIRECTORIES[directory] = _directory_context(Path(absolute))
    index, package = _DIRECTORIES[directory]
    stem = filename.rpartition(".")[0] if "." in filename else filename
    if "." not in filename and package is not None and is_python_script(Path(absolute)):
        return ModuleContext(index, "__main__", False)  # ``bin/export-features``: run, never imported
    if package is None or not stem.isidentifier():
        return None
    if stem == "__init__":
        return ModuleContext(index, package, True) if package else None
    return ModuleContext(index, f"{package}.{stem}" if package else stem, False)


def is_python_script(path: Path) -> bool:
    """A file without the ``.py`` suffix that Python runs: its first line is a ``python`` shebang
    (``#!/usr/bin/env python3``). It imports the project's modules like any other."""
    try:
        with open(path, "rb") as file:
            first = file.readline(200)
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first


def _directory_context(path: Path) -> tuple[ProjectIndex, Optional[str]]:
    """The index of the project of ``path``'s directory, and that directory's dotted package name ("" at
    an import root, None if it cannot be imported)."""
    root = import_root(path)
    # Beside an installed package (site-packages) sit other, independent distributions, and any marker
    # above it (a pyenv checkout's .git) is not the user's project: the package alone is the project.
    installed = root.name in INSTALLED_ROOTS
    marked = None if installed else project_root(path)
    package = (module_name(path, root) or "").partition(".")[0] if installed else ""
    roots = [root]
    if marked is not None:
        roots.extend(candidate for candidate in (marked, marked / "src") if candidate != root and candidate.is_dir())
    elif not installed and (working := Path.cwd()) in path.parents and working != root:
        # No marker above: the directory the run starts in is where its imports start, as ruff takes it (a
        # checkout unpacked without its ``.git``). Only for resolving names: it is no project for the cache
        # or for the codemod's whole-project checks, which a directory of unrelated programs would widen.
        roots.append(working)
    key = (*roots, package)
    if key not in _INDEXES:
        _INDEXES[key] = ProjectIndex(roots, default_cache(marked), marked, package)
    parts = path.parent.relative_to(root).parts
    return _INDEXES[key], ".".join(parts) if all(part.isidentifier() for part in parts) else None
