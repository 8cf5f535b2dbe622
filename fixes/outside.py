"""Before a module-level container is rewritten, its uses in the other modules of its project.

The analysis of one file sees only that file. The codemod can afford more: for each container it is about
to rewrite, it reads the project's other files that mention the container's name, finds the references
to it (``from pkg.state import registry``, ``state.registry``, ``pkg.state.registry``) and accepts only
what the runtime honours as a dict or a set does: subscripts, membership, ``len``, iteration, the
runtime's own methods, and calls that only read an iterable. Anything else (``isinstance``, pickling,
``type()``, ``==``, passing it to other code, rebinding it from outside) refuses the fix with where it
happens. A file that cannot be read or parsed refuses it too: the rewrite cannot be checked against it.
"""
from __future__ import annotations

import ast
import dataclasses
import functools
import os
import re
import warnings
from pathlib import Path
from typing import Iterator, Optional

from flake8_weakglobals.analysis.passed_to_calls import READING_CALLS
from flake8_weakglobals.index.project import INSTALLED_ROOTS, ModuleContext, context_for
from flake8_weakglobals.rules.container_fix import LIST_API, MAP_API, SET_API
from flake8_weakglobals.rules.findings import Finding
from flake8_weakglobals.source.python_files import SKIPPED_DIRECTORIES
from flake8_weakglobals.syntax.mentions import Mentions
from flake8_weakglobals.syntax.qualified_names import Names
from flake8_weakglobals.syntax.scopes import Scopes

from .references import References, chain_top, imported_names, references, references_to

#: Methods of ``WeakIdMap`` / ``WeakIdSet`` that behave as the dict's and set's do, and of the weak caches
#: as ``lru_cache``'s do.
_RUNTIME_METHODS = MAP_API | SET_API | LIST_API | {"cache_info", "cache_clear", "cache_parameters"}
_KEY_FREE_CALLS = frozenset({"builtins.len", "builtins.bool", "builtins.print", "builtins.repr", "builtins.str"})
_WORD = re.compile(r"[^\W\d]\w*")
_MAX_FILES = 20_000  # a bigger project is not scanned: every fix there is refused rather than guessed


def refuse_used_elsewhere(path: Path, findings: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    """``(still fixable, refused)``: containers used elsewhere in a way the rewrite may break are refused
    with the place; the others are unchanged."""
    context = context_for(path)
    keep: list[Finding] = []
    refused: list[Finding] = []
    for finding in findings:
        reason = _outside_reason(path, context, finding)
        if reason is None:
            keep.append(finding)
        else:
            refused.append(dataclasses.replace(finding, fix_reason=reason, edits=(), runtime_names=frozenset()))
    return keep, refused


def _outside_reason(path: Path, context: Optional[ModuleContext], finding: Finding) -> Optional[str]:
    if context is None:
        return None  # a script outside any package: nothing can import it by name
    qualified = f"{context.name}.{finding.name}"
    scope = _importers_scope(context)
    files = _texts(scope)
    if files is None:
        return f"the project has more than {_MAX_FILES:,} files; its other uses of it were not checked"
    own = Path(os.path.realpath(path))
    module_word = context.name.rpartition(".")[2]
    # A class attribute or an instance's (``Registry.cache``, ``tracker.seen``) may be reached through any
    # instance or subclass: every attribute of that name in an importer counts as a reference.
    attribute = finding.name.rpartition(".")[2] if finding.scope != "module" else None
    holder = f"{context.name}.{finding.name.partition('.')[0]}" if finding.scope == "instance" else None
    for other in _mentioning(scope, module_word):  # an importer names the module: ``from .state import x``
        if other == own:
            continue
        whole = _whole_namespace_read(files[other], other, _words(scope)[other], context.name, holder)
        if whole is not None:
            return whole
        if finding.name.rpartition(".")[2] not in _words(scope)[other]:
            continue
        other_context = context_for(other)
        if other_context is None:
            continue
        tree = _parsed(files[other])
        if tree is None:
            return f"`{_shown(other)}` mentions it and cannot be parsed, so its uses cannot be checked"
        found = references(other, tree)
        for line, use in _unsafe_uses(found, qualified, attribute, finding.code == "WG008") if found is not None else ():
            return f"`{_shown(other)}` line {line} uses it as {use}, which the rewrite may change"
    return _filled_from_elsewhere(path, context, finding, scope, files) if finding.fillers else None


def _filled_from_elsewhere(
    path: Path, context: ModuleContext, finding: Finding, scope: Path, files: dict[Path, str]
) -> Optional[str]:
    """A WeakValueMap's fix, where another module calls one of the functions or classes that fill the map:
    what it hands them (``register("act", nn.GELU())``, a bare ``Block("extra")``) is checked only here."""
    own = Path(os.path.realpath(path))
    for filler in finding.fillers:
        qualified = f"{context.name}.{filler}"
        for other in _mentioning(scope, filler):
            other_context = context_for(other) if other != own else None
            if other_context is None:
                continue
            tree = _parsed(files[other])
            if tree is None:
                return f"`{_shown(other)}` mentions `{filler}`, which fills it, and cannot be parsed"
            found = references(other, tree)
            for _, reference in references_to(found, qualified) if found is not None else ():
                top = chain_top(found, reference)  # type: ignore[arg-type]
                user = found.parents.get(top)  # type: ignore[union-attr]
                if isinstance(user, ast.Call) and user.func is top:
                    return (
                        f"`{_shown(other)}` line {user.lineno} calls `{filler}`, which fills it with what it is given: "
                        "those values are checked only in this module"
                    )
                if isinstance(user, ast.ClassDef) and top in user.bases:
                    return (
                        f"`{_shown(other)}` line {user.lineno} subclasses `{filler}`, whose instances fill it: where they "
                        "are built is checked only in this module"
                    )
    return None


_NAMESPACE_READS = frozenset({"builtins.vars", "inspect.getmembers", "inspect.getmembers_static"})
_TAKING_ALONG = ("pickle.", "copy.", "torch.save", "cloudpickle.", "dill.", "joblib.dump")
#: Identifiers a module must spell to read a namespace whole, or to reach one of ``_TAKING_ALONG``.
_NAMESPACE_WORDS = frozenset({"vars", "__dict__", "getmembers", "getmembers_static"})
_TAKING_ALONG_WORDS = frozenset({"pickle", "copy", "save", "cloudpickle", "dill", "joblib"})


@dataclasses.dataclass(frozen=True)
class _WholeReads:
    """What one module does with other objects whole, from one parse and one walk of it per run (every
    container asks the same modules, so each question is a lookup): the absolute names whose namespace it
    reads whole (``vars(state)``, ``state.__dict__``, ``inspect.getmembers(state)``), and those it hands to
    pickle, copy or ``torch.save``, each with the refusal that names the place."""

    namespaces: tuple[tuple[str, int, str], ...] = ()  # (absolute name, line, how)
    taken_along: tuple[tuple[str, int, str], ...] = ()


_NOTHING_READ = _WholeReads()


def _whole_namespace_read(text: str, path: Path, words: frozenset[str], module: str, holder: Optional[str]) -> Optional[str]:
    """Where another module reads this module's namespace whole (a reset that clears every dict it finds
    would skip the rewritten container), or hands the instance that holds the container to pickle, copy or
    ``torch.save``. A module that spells none of the words either needs is not parsed: a read of the
    namespace spells one of ``_NAMESPACE_WORDS``, and handing the holder along spells its name (in the
    import, at least) and one of ``_TAKING_ALONG_WORDS``."""
    takes_along = holder is not None and holder.rpartition(".")[2] in words and not words.isdisjoint(_TAKING_ALONG_WORDS)
    if words.isdisjoint(_NAMESPACE_WORDS) and not takes_along:
        return None
    reads = _whole_reads(path, text)
    found = [(line, how) for name, line, how in reads.namespaces if name == module]
    found += [(line, how) for name, line, how in reads.taken_along if holder is not None and name == holder]
    return f"`{_shown(path)}` line {found[0][0]} {found[0][1]}" if found else None


@functools.lru_cache(maxsize=_MAX_FILES)
def _whole_reads(path: Path, text: str) -> _WholeReads:
    context = context_for(path)
    tree = _parsed(text)
    if tree is None or context is None:
        return _NOTHING_READ  # the container's own uses decide whether an unparsable file refuses the fix
    names = imported_names(tree)

    def absolute(expr: ast.expr) -> Optional[str]:
        named = names.qualify(expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None
        return context.absolute(named) if named is not None else None

    namespaces: list[tuple[str, int, str]] = []
    taken_along: list[tuple[str, int, str]] = []
    lines = Mentions(text).words(_NAMESPACE_WORDS | names.spellings((*_NAMESPACE_READS, *_TAKING_ALONG)))
    for node in Scopes(tree).index_parts(tree, functools.partial(Mentions.within, lines)):  # the lines that can name one
        if isinstance(node, ast.Call) and node.args:
            callee = names.qualify(node.func) or ""
            read = absolute(node.args[0]) if callee in _NAMESPACE_READS else None
            if read is not None:
                namespaces.append((read, node.lineno, f"reads the module's namespace whole with `{ast.unparse(node)[:60]}`"))
            if callee.startswith(_TAKING_ALONG):
                how = f"passes the instance that holds it to `{ast.unparse(node.func)}()`"
                taken_along.extend((name, node.lineno, how) for name in map(absolute, node.args) if name is not None)
        elif isinstance(node, ast.Attribute) and node.attr == "__dict__":
            read = absolute(node.value)
            if read is not None:
                namespaces.append((read, node.lineno, f"reads the module's namespace whole as `{ast.unparse(node)}`"))
    return _WholeReads(tuple(namespaces), tuple(taken_along))


@functools.lru_cache(maxsize=256)
def _parsed(text: str) -> Optional[ast.Module]:
    """Another module's tree, or None when it cannot be parsed (its syntax warnings are not ours to show).
    Kept for the run's next questions: every container of a module asks the same modules about its uses."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _importers_scope(context: ModuleContext) -> Path:
    """Where the modules that can import this one live: the project's tree; outside any project, the
    directory it is imported from, whose scripts import it by its bare name (``import tracker`` beside
    ``tracker.py``); in an installed distribution, its own top-level package, never all of site-packages."""
    if context.index.project is not None:
        return context.index.project
    root = context.index.roots[0]
    return root / context.name.partition(".")[0] if root.name in INSTALLED_ROOTS else root


@functools.lru_cache(maxsize=8)
def _texts(scope: Path) -> Optional[dict[Path, str]]:
    """Every Python file under ``scope`` (real paths) and its text, read once per run and process: a run
    that fixes many files checks each container against the same tree."""
    texts: dict[Path, str] = {}
    for directory, subdirectories, files in os.walk(scope):
        subdirectories[:] = sorted(d for d in subdirectories if d not in SKIPPED_DIRECTORIES and not d.startswith("."))
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            if len(texts) >= _MAX_FILES:
                return None
            candidate = Path(os.path.realpath(Path(directory) / name))
            if not candidate.is_file():
                continue  # a FIFO would block the read forever; a dangling link has nothing to read
            try:
                texts[candidate] = candidate.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue  # not Python we could import either
    return texts


@functools.lru_cache(maxsize=8)
def _words(scope: Path) -> dict[Path, frozenset[str]]:
    """The identifiers each file under ``scope`` spells: asking which files mention a name is then a set
    lookup per file, not a text search (a run over 500 files spent 7 s searching)."""
    return {path: frozenset(_WORD.findall(text)) for path, text in (_texts(scope) or {}).items()}


def _mentioning(scope: Path, word: str) -> Iterator[Path]:
    """The files under ``scope`` that mention ``word``."""
    return (path for path, words in _words(scope).items() if word in words)


def _unsafe_uses(found: References, qualified: str, attribute: Optional[str], weak_values: bool = False) -> Iterator[tuple[int, str]]:
    """References to ``qualified`` (or, given, to any attribute named ``attribute``) in another module, and
    each use the runtime may not honour (with ``weak_values``, a ``WeakValueMap``'s fix, also each fill:
    whether what it stores is owned elsewhere is checked only in the container's own module)."""
    uses: list[tuple[int, ast.expr]] = list(found.attributes.get(attribute, [])) if attribute is not None else []
    for order, reference in references_to(found, qualified):
        top = chain_top(found, reference)
        if not (isinstance(top, ast.Attribute) and top.attr == attribute):  # such a chain is an attribute use above
            uses.append((order, reference))
    for _, reference in sorted(uses, key=lambda pair: pair[0]):
        use = _unsafe(reference, found.parents, found.names, weak_values)
        if use is not None:
            yield reference.lineno, use


#: What fills a map: another module's fill of a ``WeakValueMap`` may store what only the map would keep.
_FILLING_METHODS = frozenset({"setdefault", "update", "fromkeys", "__setitem__", "__ior__"})


def _unsafe(reference: ast.expr, parents: dict[ast.AST, ast.AST], names: Names, weak_values: bool = False) -> Optional[str]:
    parent = parents.get(reference)
    if weak_values and _fills(reference, parent, parents):
        return f"a fill (`{ast.unparse(parents.get(parent) or parent)[:60]}`), whose values the fix cannot check there"
    if isinstance(parent, ast.Subscript) and parent.value is reference:
        return None
    if isinstance(parent, ast.Call) and parent.func is reference:
        return None  # a cached function called: its cache is not what the caller sees
    if isinstance(parent, ast.Attribute):
        call = parents.get(parent)
        if parent.attr in _RUNTIME_METHODS and isinstance(call, ast.Call) and call.func is parent:
            return None
        return f"`{ast.unparse(parent)}`"
    if isinstance(parent, ast.Compare) and reference in parent.comparators and all(
        isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops
    ):
        return None
    if isinstance(parent, (ast.For, ast.comprehension)) and getattr(parent, "iter", None) is reference:
        return None
    if isinstance(parent, ast.Call) and reference in parent.args and names.qualify(parent.func) in READING_CALLS | _KEY_FREE_CALLS:
        return None
    if isinstance(parent, (ast.ImportFrom, ast.Import)):
        return None
    if isinstance(reference, ast.Name) and isinstance(reference.ctx, ast.Store):
        return None  # ``from m import X`` then ``X = ...`` rebinds this module's name only
    if isinstance(reference, ast.Attribute) and isinstance(reference.ctx, (ast.Store, ast.Del)):
        return f"an assignment to `{ast.unparse(reference)}`"
    shown = parent if isinstance(parent, ast.expr) else reference
    return f"`{ast.unparse(shown)[:60]}`"


def _fills(reference: ast.expr, parent: Optional[ast.AST], parents: dict[ast.AST, ast.AST]) -> bool:
    """``X[k] = v``, ``X.setdefault(k, v)``, ``X.update(...)``, ``X |= ...``."""
    if isinstance(parent, ast.Subscript) and parent.value is reference:
        return isinstance(parent.ctx, ast.Store)
    if isinstance(parent, ast.Attribute) and parent.attr in _FILLING_METHODS:
        return True
    return isinstance(parent, ast.AugAssign) and parent.target is reference


def _shown(path: Path) -> str:
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()
