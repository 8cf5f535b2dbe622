"""The project index: what the other modules of the checked file's project define, read lazily.

It sits below the analysis and knows nothing of rules. For each module it keeps a summary built with
``ast`` from module-level statements only: the classes and their bases, the functions that wrap
``functools.lru_cache``, what functions are annotated to return, the module-level containers, the names a
star import brings, and what the module imports. Every name in a summary is absolute (``pkg.base.Rotary``).

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
import tempfile
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterator, Optional

from .containers import ContainerType, classify
from .names import Names

#: Entries are valid only for the summariser that wrote them: its own source is part of the key.
_FORMAT = hashlib.blake2b(Path(__file__).read_bytes(), digest_size=8).hexdigest()
_MAX_HOPS = 12  # re-exports and base classes followed per question: cycles and huge chains stay bounded
_MAX_FILE_BYTES = 2_000_000  # generated giants are not worth a parse to answer about one name
_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
CACHE_FUNCTIONS = frozenset({"functools.lru_cache", "functools.cache"})
_EMPTYING = frozenset({"clear", "pop", "popitem", "remove", "discard"})
CACHE_DIRECTORY_VARIABLE = "WEAKGLOBALS_CACHE_DIR"
NO_CACHE_VARIABLE = "WEAKGLOBALS_NO_CACHE"


@dataclass
class ModuleSummary:
    name: str
    aliases: dict[str, str] = field(default_factory=dict)  # module-level imports: local name -> absolute target
    classes: dict[str, list[str]] = field(default_factory=dict)  # class -> its bases, absolute
    cache_wrappers: list[str] = field(default_factory=list)  # functions (or names) that wrap lru_cache
    returns: dict[str, str] = field(default_factory=dict)  # function -> the absolute type it is annotated to return
    containers: dict[str, tuple[int, str]] = field(default_factory=dict)  # container -> (line, ContainerType value)
    exports: list[str] = field(default_factory=list)  # what ``from module import *`` binds
    stars: list[str] = field(default_factory=list)  # modules it star-imports


def absolute(target: str, module: str, is_package: bool) -> str:
    """``.base.Rotary`` imported in ``pkg.models.llama`` is ``pkg.models.base.Rotary``."""
    level = len(target) - len(target.lstrip("."))
    if not level:
        return target
    parts = module.split(".") if is_package else module.split(".")[:-1]
    base = parts[: len(parts) - (level - 1)] if level - 1 <= len(parts) else []
    rest = target[level:]
    return ".".join([*base, rest] if rest else base)


def summarize(tree: ast.Module, module: str, is_package: bool, source: str) -> ModuleSummary:
    """The summary of one parsed module. Only module-level statements are read, ``if`` blocks included;
    functions are searched for ``lru_cache`` only in a module whose text names a cache."""
    mentions_a_cache = "cache" in source
    names = Names()
    summary = ModuleSummary(module)
    statements = list(_module_statements(tree.body))
    for statement in statements:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            names.add_import(statement, module_level=True)
            if isinstance(statement, ast.ImportFrom) and any(alias.name == "*" for alias in statement.names):
                star = "." * statement.level + (statement.module or "")
                summary.stars.append(absolute(star, module, is_package))
    local = {
        statement.name
        for statement in statements
        if isinstance(statement, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
    }

    def qualify(expr: ast.expr) -> Optional[str]:
        root = expr
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in local and not isinstance(expr, ast.Attribute):
            return f"{module}.{root.id}"
        qualified = names.qualify(expr)
        return absolute(qualified, module, is_package) if qualified else None

    for statement in statements:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            for alias in statement.names:
                if alias.name != "*":
                    local_name = alias.asname or alias.name.partition(".")[0]
                    target = names.qualify(ast.Name(local_name))
                    if target:
                        summary.aliases[local_name] = absolute(target, module, is_package)
        elif isinstance(statement, ast.ClassDef):
            summary.classes[statement.name] = [q for base in statement.bases if (q := qualify(base))]
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if mentions_a_cache and wraps_a_cache(statement, qualify):
                summary.cache_wrappers.append(statement.name)
            returned = _returned_type(statement.returns, qualify)
            if returned:
                summary.returns[statement.name] = returned
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    _summarize_binding(summary, target.id, statement, names, qualify)
    summary.exports = _exports(tree, statements, summary)
    return summary


def emptied_by(tree: ast.Module, module: str, is_package: bool) -> set[str]:
    """The names, of this module or imported, that it empties: ``layers.registry.clear()``,
    ``registry.pop(k)``, ``del registry[k]``, wherever it happens (a function importing locally included).
    Not part of the summary: only WG005 asks, about the neighbours of one module, so it is read on demand."""
    names, local = Names(), Names()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            local.add_import(node, module_level=False)
    for statement in tree.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            names.add_import(statement, module_level=True)
    found = set()
    for node in ast.walk(tree):
        target = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _EMPTYING:
            target = node.func.value
        elif isinstance(node, ast.Delete):
            target = next((t.value for t in node.targets if isinstance(t, ast.Subscript)), None)
        if isinstance(target, (ast.Name, ast.Attribute)):
            qualified = names.qualify(target) or local.qualify(target)
            if qualified and not qualified.startswith("builtins."):
                found.add(absolute(qualified, module, is_package))
    return found


def _module_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, looking into ``if``/``try`` blocks (``TYPE_CHECKING``, fallbacks)."""
    for statement in body:
        yield statement
        if isinstance(statement, ast.If):
            yield from _module_statements(statement.body)
            yield from _module_statements(statement.orelse)
        elif isinstance(statement, ast.Try):
            for block in (statement.body, statement.orelse, statement.finalbody, *(h.body for h in statement.handlers)):
                yield from _module_statements(block)


def _summarize_binding(summary: ModuleSummary, name: str, statement: ast.Assign | ast.AnnAssign, names: Names, qualify) -> None:  # type: ignore[no-untyped-def]
    value = statement.value
    assert value is not None
    constructor = classify(value, names)
    if constructor is not None and constructor.type is not ContainerType.PLACEHOLDER:
        summary.containers[name] = (statement.lineno, constructor.type.value)
    cache_call = value.func if isinstance(value, ast.Call) else value
    if isinstance(cache_call, (ast.Name, ast.Attribute)) and qualify(cache_call) in CACHE_FUNCTIONS:
        summary.cache_wrappers.append(name)  # ``my_cache = functools.lru_cache(maxsize=None)``


def wraps_a_cache(function: ast.FunctionDef | ast.AsyncFunctionDef, qualify) -> bool:  # type: ignore[no-untyped-def]
    """A decorator (or decorator factory) that applies ``functools.lru_cache``/``cache`` to the function it
    decorates: ``lru_cache(maxsize=n)(fn)`` or ``cache(fn)`` on one of its own (or a nested function's)
    parameters, or ``return lru_cache(...)``. A cache it keeps for something else (``@lru_cache`` on a
    warn-once helper inside ``deprecated``) does not make it one."""
    if any(qualify(d.func if isinstance(d, ast.Call) else d) in CACHE_FUNCTIONS for d in function.decorator_list):
        return False
    local = Names()  # ``import functools`` inside the wrapper counts as well
    parameters: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            local.add_import(node, module_level=True)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            parameters.update(argument.arg for argument in node.args.args + node.args.posonlyargs + node.args.kwonlyargs)

    def is_cache(expr: ast.expr) -> bool:
        expr = expr.func if isinstance(expr, ast.Call) else expr
        return isinstance(expr, (ast.Name, ast.Attribute)) and bool(CACHE_FUNCTIONS & {qualify(expr), local.qualify(expr)})

    for node in ast.walk(function):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Call) and is_cache(node.value.func):
            return True  # ``return functools.lru_cache(maxsize=None)``: hands out the cache decorator itself
        if isinstance(node, ast.Call) and is_cache(node.func) and node.args:
            applied = node.args[0]
            if isinstance(applied, ast.Name) and applied.id in parameters:
                return True
    return False


def _returned_type(annotation: Optional[ast.expr], qualify) -> Optional[str]:  # type: ignore[no-untyped-def]
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.Subscript) and qualify(annotation.value) in ("typing.Optional",):
        annotation = annotation.slice
    return qualify(annotation) if isinstance(annotation, (ast.Name, ast.Attribute)) else None


def _exports(tree: ast.Module, statements: list[ast.stmt], summary: ModuleSummary) -> list[str]:
    for statement in tree.body:
        if (
            isinstance(statement, ast.Assign)
            and any(isinstance(target, ast.Name) and target.id == "__all__" for target in statement.targets)
            and isinstance(statement.value, (ast.List, ast.Tuple))
        ):
            return [e.value for e in statement.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    defined = set(summary.aliases) | set(summary.classes) | set(summary.returns) | set(summary.containers)
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defined.add(statement.name)
        elif isinstance(statement, ast.Assign):
            defined.update(target.id for target in statement.targets if isinstance(target, ast.Name))
    return sorted(name for name in defined if not name.startswith("_"))


def _parse(path: Path) -> Optional[tuple[ast.Module, str]]:
    """The tree and text of another module of the project, or None if it cannot be read or parsed."""
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes in someone else's file are not our findings
            return ast.parse(text, str(path)), text
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


# --- finding modules -----------------------------------------------------------------------------------


def import_root(path: Path) -> Path:
    """The directory a file's top-level package sits in: up through every directory with ``__init__.py``."""
    directory = path.parent
    while (directory / "__init__.py").is_file() and directory.parent != directory:
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
        if any((directory / marker).exists() for marker in _PROJECT_MARKERS):
            found = directory
            break
    for directory in walked:
        _MARKED[directory] = found
    return found


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

    def __init__(self, roots: list[Path], cache: Optional[SummaryCache], project: Optional[Path] = None) -> None:
        self.roots = roots
        self.project = project  # the directory with the project's marker, if any
        self.cache = cache
        self._files: dict[str, Optional[tuple[Path, bool]]] = {}  # module -> (file, is a package), or None
        self._loaded: dict[Path, tuple[tuple[int, int], Optional[ModuleSummary]]] = {}
        self._emptying: dict[Path, tuple[tuple[int, int], set[str]]] = {}  # WG005's question, on demand

    def module(self, name: str) -> Optional[ModuleSummary]:
        """The summary of module ``name``, rebuilt when its file changed since it was read (one ``stat``)."""
        if name not in self._files:
            self._files[name] = self._find(name)
        found = self._files[name]
        if found is None:
            return None
        path, is_package = found
        try:
            status = path.stat()
        except OSError:
            return None
        stamp = (status.st_size, status.st_mtime_ns)
        loaded = self._loaded.get(path)
        if loaded is None or loaded[0] != stamp:
            loaded = self._loaded[path] = (stamp, self._summary(path, stamp, name, is_package))
        return loaded[1]

    def _find(self, name: str) -> Optional[tuple[Path, bool]]:
        for root in self.roots:
            base = root.joinpath(*name.split("."))
            for path, is_package in ((base / "__init__.py", True), (base.with_name(base.name + ".py"), False)):
                if path.is_file():
                    return path, is_package
        return None

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
        """The module that defines ``qualified`` and the name in it, following re-exports."""
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
        if attribute in summary.classes or attribute in summary.returns or attribute in summary.containers:
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

    def is_cache_wrapper(self, qualified: str) -> bool:
        located = self.locate(qualified)
        return located is not None and located[1] in located[0].cache_wrappers

    def returned_type(self, qualified: str) -> Optional[str]:
        located = self.locate(qualified)
        return located[0].returns.get(located[1]) if located is not None else None

    def is_class(self, qualified: str) -> bool:
        located = self.locate(qualified)
        return located is not None and located[1] in located[0].classes

    def container(self, qualified: str) -> Optional[tuple[str, int, str]]:
        """A module-level container of a project module: (module, line, ContainerType value)."""
        located = self.locate(qualified)
        if located is None or located[1] not in located[0].containers:
            return None
        line, kind = located[0].containers[located[1]]
        return located[0].name, line, kind

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
            if name != owner and qualified in self._emptied(directory / f"{stem}.py", name, stem == "__init__"):
                return name
        return None

    def _emptied(self, path: Path, name: str, is_package: bool) -> set[str]:
        try:
            status = path.stat()
        except OSError:
            return set()
        stamp = (status.st_size, status.st_mtime_ns)
        known = self._emptying.get(path)
        if known is None or known[0] != stamp:
            parsed = _parse(path) if stamp[0] <= _MAX_FILE_BYTES else None
            known = self._emptying[path] = (stamp, emptied_by(parsed[0], name, is_package) if parsed else set())
        return known[1]

    def star_names(self, module: str) -> list[str]:
        summary = self.module(module)
        return summary.exports if summary is not None else []


@dataclass(frozen=True)
class ModuleContext:
    """The checked file's place in its project: its index, its dotted name, whether it is a package."""

    index: ProjectIndex
    name: str
    is_package: bool

    def absolute(self, qualified: str) -> str:
        return absolute(qualified, self.name, self.is_package)


_INDEXES: dict[tuple[Path, ...], ProjectIndex] = {}
_DIRECTORIES: dict[Path, tuple[Path, ProjectIndex]] = {}  # a directory's import root, and its project's index
_MARKED: dict[Path, Optional[Path]] = {}  # a directory -> the project root above it (``project_root``)


def context_for(path: Path) -> Optional[ModuleContext]:
    """The project context of the file at ``path``; one index per set of roots per process, so that a
    run over a tree (or flake8's worker) summarises each module once."""
    path = Path(os.path.abspath(path))
    if not path.is_file():
        return None  # stdin, a snippet: nothing around it to resolve
    if path.parent not in _DIRECTORIES:  # files of one directory share their roots: a few stats per directory
        root, marked = import_root(path), project_root(path)
        roots = [root]
        if marked is not None:
            roots.extend(candidate for candidate in (marked, marked / "src") if candidate != root and candidate.is_dir())
        key = tuple(roots)
        if key not in _INDEXES:
            _INDEXES[key] = ProjectIndex(roots, default_cache(marked), marked)
        _DIRECTORIES[path.parent] = (root, _INDEXES[key])
    root, index = _DIRECTORIES[path.parent]
    name = module_name(path, root)
    return ModuleContext(index, name, path.name == "__init__.py") if name is not None else None
