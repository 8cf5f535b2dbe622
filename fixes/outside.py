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
from pathlib import Path
from typing import Callable, Iterator, Optional

from flake8_weakglobals.analysis.call_routes import handing_decorator, strings_naming
from flake8_weakglobals.analysis.walks_that_see_a_change import walk_that_sees_a_change
from flake8_weakglobals.analysis.compiled_regions import compiled_functions, enclosing_function, spells_a_compiler, untraceable
from flake8_weakglobals.analysis.evidence import argument_at
from flake8_weakglobals.analysis.framework_types import TENSOR, Vocabulary
from flake8_weakglobals.analysis.letting_go import sees_what_goes as sees_what_goes_there
from flake8_weakglobals.analysis.owners import Owners, Premise, owners_in
from flake8_weakglobals.analysis.passed_to_calls import READING_CALLS
from flake8_weakglobals.index.project import ModuleContext, context_for
from flake8_weakglobals.rules.analyze_module import TORCH_ONLY
from flake8_weakglobals.rules.container_fix import HOLDER_SAFE_CALLS, LIST_API, MAP_API, SET_API
from flake8_weakglobals.rules.findings import Finding
from flake8_weakglobals.syntax.container_expressions import Member
from flake8_weakglobals.syntax.mentions import STAR_IMPORT, Mentions
from flake8_weakglobals.syntax.qualified_names import Names
from flake8_weakglobals.syntax.scopes import FunctionNode, Scopes, every_statement, module_level

from .references import References, chain_top, imported_names, names_another_class, references, references_to
from .project_texts import MAX_FILES, importers_scope, mentioning, parsed, shown_path, spells, texts_under, whole_word
from .routes_by_name import NAMESPACE_READS, named_in_strings, namespace_kept_by_a_runner, reached_by_name
from .replaced_tensors import REPLACEMENT_SPELLINGS, replacement_sites

#: Methods of ``WeakIdMap`` / ``WeakIdSet`` that behave as the dict's and set's do, and of the weak caches
#: as ``lru_cache``'s do.
_RUNTIME_METHODS = MAP_API | SET_API | LIST_API | {"cache_info", "cache_clear", "cache_parameters"}
_KEY_FREE_CALLS = frozenset({"builtins.len", "builtins.bool", "builtins.print", "builtins.repr", "builtins.str"})


def refuse_used_elsewhere(
    path: Path, findings: list[Finding], vocabulary: Vocabulary = TORCH_ONLY
) -> tuple[list[Finding], list[Finding]]:
    """``(still fixable, refused)``: containers used elsewhere in a way the rewrite may break, or whose
    owners' premises do not hold there, are refused with the place; the others get the uses found in other
    modules added to their proof."""
    context = context_for(path)
    keep: list[Finding] = []
    refused: list[Finding] = []
    for finding in findings:
        reason, uses = _outside_reason(path, context, finding, vocabulary)
        if reason is None:
            proof = sorted((*finding.proof, *uses), key=lambda line: line.startswith("use, "))  # owners first
            keep.append(dataclasses.replace(finding, proof=tuple(proof)))
        else:
            refused.append(dataclasses.replace(finding, fix_reason=reason, edits=(), runtime_names=frozenset(), proof=()))
    return keep, refused


def _outside_reason(
    path: Path, context: Optional[ModuleContext], finding: Finding, vocabulary: Vocabulary
) -> tuple[Optional[str], tuple[str, ...]]:
    """The first reason another module of the project gives to leave the container alone, or the uses
    found there (one proof line each)."""
    for kind in sorted(finding.holds):
        replaced = _replaced(path, context, kind)
        if replaced is not None:
            return replaced, ()
    # A script or top-level module may be run by its path, its namespace handed to the runner (a package's
    # modules are found so by ``reached_by_name``, among the project's files).
    run = namespace_kept_by_a_runner(path) if context is None or "." not in context.name else None
    if run is not None or context is None:  # outside any package, nothing else can import it by name
        return run, ()
    scope = importers_scope(context)
    files = texts_under(scope)
    if files is None:
        return f"the project has more than {MAX_FILES:,} files; its other uses of it were not checked", ()
    own = Path(os.path.realpath(path))
    top, dot, rest = finding.name.partition(".")  # ``Registry.cache``: the class goes by the names, the attribute with it
    exported = _exported_as(scope, files, context.name, top)
    names = frozenset(f"{name}{dot}{rest}" for name in exported)
    attribute_name = finding.name.rpartition(".")[2]
    spelled = named_in_strings(scope, files, {name.rpartition(".")[0].rpartition(".")[2] for name in names}, attribute_name)
    if spelled is not None:
        return (
            f"`{shown_path(spelled[0])}` line {spelled[1]} names it in a string (`{spelled[2][:60]!r}`), a route by which "
            "code reaches it that no reference shows"
        ), ()
    dynamic = reached_by_name(scope, files, finding, context, names)
    if dynamic is not None:
        return dynamic, ()
    # A class attribute or an instance's (``Registry.cache``, ``tracker.seen``) may be reached through any
    # instance or subclass: every attribute of that name in an importer counts as a reference.
    attribute = finding.name.rpartition(".")[2] if finding.scope != "module" else None
    holder = f"{context.name}.{finding.name.partition('.')[0]}" if finding.scope in ("instance", "class") else None
    owner = f"{context.name}.{top}" if dot and context.index.is_class(f"{context.name}.{top}") else None
    uses: list[str] = []
    sees_what_goes = finding.sees_what_goes  # read by a walk or a position: here, or (below) elsewhere
    sequence = "WeakIdList" in finding.runtime_names  # a list: its walks never raised, and a position can name another
    for other in mentioning(scope, {name.rpartition(".")[0].rpartition(".")[2] for name in exported}):  # each module it is in
        if other == own:
            continue
        whole = _whole_namespace_read(scope, files[other], other, context.name, holder if finding.scope == "instance" else None)
        if whole is None and context_for(other) is not None:
            whole = _module_as_a_value(other, files[other], {name.rpartition(".")[0] for name in exported})
        if whole is not None:
            return whole, ()
        spelled = {name.rpartition(".")[2] for name in names}  # a re-export may rename it: ``import X as Y``
        if not any(spells(scope, other, word) for word in spelled) and (holder is None or not spells(scope, other, holder.rpartition(".")[2])):
            continue
        if context_for(other) is None:
            continue
        tree = parsed(files[other])
        if tree is None:
            return f"`{shown_path(other)}` mentions it and cannot be parsed, so its uses cannot be checked", ()
        found = references(other, tree)
        if found is None:
            continue
        reads_another_class = functools.partial(names_another_class, found, context_for(other), owner=owner) if owner else None
        for line, use, statement, reference in _uses_in(found, names, attribute, holder, files[other], sequence, reads_another_class, finding.scope == "instance"):
            sees_what_goes = sees_what_goes or sees_what_goes_there(found.parents.get, reference, sequence)
            if use is not None:
                return f"`{shown_path(other)}` line {line} uses it as {use}, which the rewrite may change", ()
            if finding.code == "WG005":
                return (
                    f"`{shown_path(other)}` line {line} uses it, and the fix changes its keys from `id(x)` to `x` only in "
                    "its own module", ()
                )
            uses.append(f"use, {shown_path(other)}:{line}: `{statement}`")
    premise, callers = _premise_broken(own, context, finding, scope, files, vocabulary, sees_what_goes)
    if premise is not None:
        return premise, ()
    filled = _filled_from_elsewhere(path, context, finding, scope, files) if finding.fillers else None
    return filled, tuple(dict.fromkeys((*callers, *uses))) if filled is None else ()


def _replaced(path: Path, context: Optional[ModuleContext], kind: str) -> Optional[str]:
    """Where the project (or a script outside any, itself) has torch swap tensors, which the weak references
    the fix gives each tensor it holds would make raise, recompute a module's weight, or replace modules or
    parameters in place, which then only the container would keep (``replaced_tensors.py``): the first such
    place for objects of ``kind``, looked for only when a fix holds that kind."""
    group = next((kinds for kinds in REPLACEMENT_SPELLINGS.values() if kind in kinds), None)
    if group is None:
        return None  # an extra type of the user's: torch replaces none
    if context is None:
        return _replaced_in(path, True, group)
    return _replaced_in(importers_scope(context), False, group)


@functools.lru_cache(maxsize=64)
def _replaced_in(scope: Path, script: bool, kinds: frozenset[str]) -> Optional[str]:
    """``_replaced`` for a whole project, or one script, and the kinds that the same routes replace (tensors
    and parameters; modules): asked once per run and kinds, whatever the containers."""
    if script:
        try:
            files: Optional[dict[Path, str]] = {scope: scope.read_text(encoding="utf-8")}
        except (OSError, UnicodeDecodeError):
            return None  # the file's own check reported it
    else:
        files = texts_under(scope)
    spellings = [words for words, replaced in REPLACEMENT_SPELLINGS.items() if replaced == kinds]
    for other, text in (files or {}).items():  # in listed order; too large to scan: refused for that reason already
        if not any(all(word in text and whole_word(word).search(text) for word in words) for words in spellings):
            continue
        tree = parsed(text)
        sites = _replacement_sites(tree) if tree is not None else {}
        site = min((sites[kind] for kind in kinds if kind in sites), default=None)
        if site is not None:
            return f"`{shown_path(other)}` line {site[0]} {site[1]}"
    return None


@functools.lru_cache(maxsize=256)
def _replacement_sites(tree: ast.Module) -> dict[str, tuple[int, str]]:
    """``replaced_tensors.replacement_sites`` of another module, once per tree: both kind groups (tensors,
    modules) ask the modules that spell both."""
    return replacement_sites(tree, imported_names(tree))


def _module_as_a_value(path: Path, text: str, modules: set[str]) -> Optional[str]:
    """Where the module at ``path`` uses a module that holds the container as a value, not only to read a
    named attribute of it: hands it to a call (``snapshot(gradnorms)``, ``getattr(m, "X", None)``,
    ``reload(m)``), binds it to another name, compares it. What it is handed to may read the container
    under any name, so no use is shown."""
    tree = parsed(text)
    context = context_for(path)
    if tree is None or context is None or not _may_name_a_module(tree, context, modules, text):
        return None  # an unparsable file: the container's own uses decide whether it refuses the fix
    found = references(path, tree)
    if found is None:
        return None
    for module in sorted(modules):
        for _, reference in found.by_name.get(module, ()):
            parent = found.parents.get(reference)
            if not (isinstance(parent, ast.Attribute) and parent.value is reference):
                return (
                    f"`{shown_path(path)}` line {reference.lineno} uses the module `{module}` itself as a value "
                    f"(`{_statement(reference, found.parents)}`), and what receives it may read the container"
                )
    return None


def _quoted(text: str, name: str) -> bool:
    """Whether ``text`` has a string that may spell ``name`` whole or at the end of a path (``"name"``,
    ``'pkg.mod:name'``): a text search before the module's strings are read (``strings_naming``)."""
    return re.search(rf"[\"'](?:[\w.]*[.:])?{re.escape(name)}[\"']", text) is not None


def _may_name_a_module(tree: ast.Module, context: ModuleContext, modules: set[str], text: str) -> bool:
    """Whether a module can name one of ``modules`` at all: it imports it, something in it, a package above
    it (``import pkg`` reaches ``pkg.state``), or anything with a star, or spells one's dotted name in a string
    (``sys.modules["pkg.state"]``). Most modules that share a word with it (``logger.debug`` beside
    ``pkg.debug``) do none of these, and are not walked whole for references."""
    if any(module in text for module in modules):
        return True
    for statement in every_statement(tree.body):
        if isinstance(statement, ast.Import):
            imported = [alias.name for alias in statement.names]
        elif isinstance(statement, ast.ImportFrom):
            source = context.absolute("." * statement.level + (statement.module or ""))
            imported = [source if alias.name == "*" else f"{source}.{alias.name}" for alias in statement.names]
        else:
            continue
        if any(module == name or module.startswith(f"{name}.") or name.startswith(f"{module}.") for name in imported for module in modules):
            return True
    return False


def _exported_as(scope: Path, files: dict[Path, str], module: str, name: str) -> frozenset[str]:
    """The absolute names the container goes by in the project: its own (``pkg.names.REGISTRY``) and each
    re-export of it, a package's ``__init__`` doing ``from .names import REGISTRY`` or ``from .names import
    *`` (``pkg.REGISTRY``), followed through re-exports of re-exports. A module that imports it from a
    re-export names no module that defines it."""
    found = {f"{module}.{name}"}
    pending = [f"{module}.{name}"]
    while pending:
        current = pending.pop()
        source_module, _, source_name = current.rpartition(".")
        module_word = source_module.rpartition(".")[2]
        starred = not source_name.startswith("_")  # a star import binds every public name (``__all__`` aside)
        for other in mentioning(scope, {source_name, module_word} if starred else {source_name}):
            if not spells(scope, other, module_word):
                continue  # ``from .names import X`` spells the module it imports from
            if not spells(scope, other, source_name) and not STAR_IMPORT.search(files[other]):
                continue
            if not re.search(rf"(?m)^[ \t]*from\s+[\w.]*\b{re.escape(module_word)}\s+import\b", files[other]):
                continue  # no ``from ...{module_word} import`` to read
            tree = parsed(files[other])
            other_context = context_for(other)
            if tree is None or other_context is None:
                continue
            for statement in module_level(tree.body):  # ``try: from .table import X``, ``if ...:`` too
                if not isinstance(statement, ast.ImportFrom):
                    continue
                imported_from = other_context.absolute("." * statement.level + (statement.module or ""))
                for alias in statement.names:
                    if imported_from == source_module and (alias.name == source_name or (alias.name == "*" and starred)):
                        exported = f"{other_context.name}.{alias.asname or source_name}"
                        if exported not in found:
                            found.add(exported)
                            pending.append(exported)
    return frozenset(found)


def _filled_from_elsewhere(
    path: Path, context: ModuleContext, finding: Finding, scope: Path, files: dict[Path, str]
) -> Optional[str]:
    """A WeakValueMap's fix, where another module calls one of the functions or classes that fill the map:
    what it hands them (``register("act", nn.GELU())``, a bare ``Block("extra")``) is checked only here."""
    own = Path(os.path.realpath(path))
    for filler in finding.fillers:
        qualified = f"{context.name}.{filler}"
        for other in mentioning(scope, {filler}):
            other_context = context_for(other) if other != own else None
            if other_context is None:
                continue
            tree = parsed(files[other])
            if tree is None:
                return f"`{shown_path(other)}` mentions `{filler}`, which fills it, and cannot be parsed"
            found = references(other, tree)
            for _, reference in references_to(found, qualified) if found is not None else ():
                top = chain_top(found, reference)  # type: ignore[arg-type]
                user = found.parents.get(top)  # type: ignore[union-attr]
                if isinstance(user, ast.Call) and user.func is top:
                    return (
                        f"`{shown_path(other)}` line {user.lineno} calls `{filler}`, which fills it with what it is given: "
                        "those values are checked only in this module"
                    )
                if isinstance(user, ast.ClassDef) and top in user.bases:
                    return (
                        f"`{shown_path(other)}` line {user.lineno} subclasses `{filler}`, whose instances fill it: where they "
                        "are built is checked only in this module"
                    )
    return None


def _in_annotation(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """``-> Tuple[Engine, ...]``, ``engine: Engine``: a type named in an annotation, nothing built."""
    child, current = node, parents.get(node)
    while current is not None and not isinstance(current, ast.stmt):
        if isinstance(current, ast.arg):
            return current.annotation is child
        child, current = current, parents.get(current)
    if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return current.returns is child
    return isinstance(current, ast.AnnAssign) and current.annotation is child


def _type_checked(user: Optional[ast.AST], node: ast.expr, found: References) -> bool:
    """``isinstance(x, Block)``, ``issubclass(t, (Block, Other))``, ``except Block:``: the class named,
    nothing built."""
    if isinstance(user, ast.Tuple):
        node, user = user, found.parents.get(user)
    if isinstance(user, ast.ExceptHandler):
        return user.type is node
    return isinstance(user, ast.Call) and found.names.qualify(user.func) in ("builtins.isinstance", "builtins.issubclass") and node in user.args[1:]


def _premise_broken(
    own: Path, context: ModuleContext, finding: Finding, scope: Path, files: dict[Path, str], vocabulary: Vocabulary,
    sees_what_goes: bool,
) -> tuple[Optional[str], list[str]]:
    """Where another module breaks what the owners shown in the container's module take on trust (the
    finding's premises): a call of a function that fills the container with what it is given passes an
    object no owner is shown for there (``registry.register(nn.GELU())``), a call drops what it makes
    (``Block("extra")`` as a statement), or the function is handed out there. What the owners shown there
    take on trust in turn (a caller's parameter, a subclass's instances) is checked the same way. Where all
    hold, the calls checked are proof lines: each owner the other modules show. Where the container is
    read by a route that ``sees_what_goes`` (a walk, a position; any use in another module counts, as those
    reads are not sorted), an owner there that lets go refuses it."""
    owners: dict[ast.Module, Owners] = {}
    pending = [(context.name, premise) for premise in finding.premises]
    checked: set[tuple[str, Premise]] = set()
    shown: list[str] = []
    while pending:
        module, premise = pending.pop()
        if (module, premise) in checked:
            continue
        checked.add((module, premise))
        owner_class, _, method = premise.callee.rpartition(".")
        exported = frozenset() if owner_class else _exported_as(scope, files, module, method)
        # a module that calls the function spells the module it imports it from (``from .names import
        # record``, ``names.record(...)``): the others, however many share the word, are not read
        importing_words = {name.rpartition(".")[0].rpartition(".")[2] for name in exported}
        for other in mentioning(scope, {method}):
            if exported and not any(spells(scope, other, word) for word in importing_words):
                continue
            other_context = context_for(other) if other != own or module != context.name else None
            tree = parsed(files[other]) if other_context is not None else None
            if tree is None or other_context is None:
                continue
            # its references are walked only where it can name the function (or, for a method, its module)
            callable_here = other_context.name == module or _may_name_a_module(tree, other_context, {module} if owner_class else set(exported), files[other])
            found = references(other, tree) if callable_here else None
            calls: list[ast.Call] = []
            if owner_class:  # a method: its calls, whatever the receiver, in a module that imports that one
                if found is None:
                    continue
                for _, attribute in found.attributes.get(method, []):
                    call = found.parents.get(attribute)
                    if isinstance(call, ast.Call) and call.func is attribute:
                        calls.append(call)
                    elif isinstance(attribute.ctx, ast.Load):  # ``add = registry.add``, ``map(registry.add, ...)``
                        return f"`{shown_path(other)}` line {attribute.lineno} hands `{premise.callee}`, which fills it, to other code as a value", shown
            named = strings_naming(tree, premise.builds or premise.position is None).get(method) if _quoted(files[other], method) else None
            if named is not None:  # a class by its import path only: ``"Engine"`` alone is a label
                return f"`{shown_path(other)}` line {named} names `{premise.callee}`, which fills it, in a string: a route by which it is called with what the fix cannot see", shown
            elif found is not None:
                for name in exported:
                    for _, reference in references_to(found, name):
                        if isinstance(found.parents.get(reference), ast.Attribute):
                            continue  # ``Block.instances``, ``Block.create(...)``: the class's own attribute, not the class handed on
                        top = chain_top(found, reference)
                        user = found.parents.get(top)
                        if isinstance(user, ast.Call) and user.func is top:
                            calls.append(user)
                        elif isinstance(user, ast.ClassDef) and top in user.bases:  # its instances are the subclass's
                            decorator = handing_decorator(user, found.names)
                            if decorator is not None:
                                return f"`{shown_path(other)}` line {decorator.lineno} hands `{user.name}`, a subclass of `{method}`, to `@{ast.unparse(decorator)[:40]}`, which may build it", shown
                            pending.append((other_context.name, Premise(user.name, None, builds=True)))  # type: ignore[union-attr]
                        elif (
                            not isinstance(user, (ast.Import, ast.ImportFrom, ast.Compare)) and isinstance(reference.ctx, ast.Load)
                            and not _type_checked(user, top, found) and not _in_annotation(top, found.parents)
                        ):
                            return f"`{shown_path(other)}` line {reference.lineno} hands `{method}`, which fills it, to other code as a value", shown
            for call in calls:
                if tree not in owners:  # by tree: a file parsed again is another tree
                    owners[tree] = owners_in(tree, files[other], vocabulary, other_context)  # type: ignore[arg-type,index]
                if premise.position is None:
                    kept = owners[tree].kept_where_built(call)  # type: ignore[index]
                    if not kept.shown:
                        return f"`{shown_path(other)}` line {call.lineno} calls `{premise.callee}`: {kept.why}, which then only the container would keep", shown
                    continue
                argument = argument_at(call, premise.parameter, premise.position)
                if argument is None:
                    continue
                owner = owners[tree].of_member(Member(argument, "item"), call.lineno, parts=True, buffers=_holds_buffers(finding))  # type: ignore[index]
                if not owner.shown:
                    return f"`{shown_path(other)}` line {call.lineno} passes `{ast.unparse(argument)[:50]}` to `{premise.callee}`, which keeps it: {owner.why}", shown
                releases = [r for r in owner.releases if r.line != call.lineno]  # the call that fills is no release
                if releases and sees_what_goes:  # where the reads run is not followed across modules: any may come after
                    release = releases[0]
                    return (
                        f"`{shown_path(other)}` line {call.lineno} passes `{ast.unparse(argument)[:50]}` to `{premise.callee}`, which keeps it: "
                        f"{owner.why}, but line {release.line} there lets go of it ({release.how}), and the container may be read after that"
                    ), shown
                shown.append(f"owner, {shown_path(other)}:{call.lineno}: `{ast.unparse(argument)[:50]}` passed to `{premise.callee}` is {owner.why}")
                pending.extend((other_context.name, further) for further in owner.premises)  # type: ignore[union-attr]
    return None, shown


def _holds_buffers(finding: Finding) -> bool:
    """Whether what a finding's container holds may be a module's buffers: tensors that are no parameters
    (a conversion of the module replaces its buffers, and converts its parameters in place)."""
    return not finding.holds or TENSOR in finding.holds


@functools.lru_cache(maxsize=64)
def _compiled(tree: ast.Module, names: Names, spelled: bool) -> dict[FunctionNode, str]:
    """The functions of another module that a compiler may trace (``compiled_regions``), once per tree."""
    return compiled_functions(tree, names, spelled)


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


def _whole_namespace_read(scope: Path, text: str, path: Path, module: str, holder: Optional[str]) -> Optional[str]:
    """Where another module reads this module's namespace whole (a reset that clears every dict it finds
    would skip the rewritten container), or hands the instance that holds the container to pickle, copy or
    ``torch.save``. A module that spells none of the words either needs is not parsed: a read of the
    namespace spells one of ``_NAMESPACE_WORDS``, and handing the holder along spells its name (in the
    import, at least) and one of ``_TAKING_ALONG_WORDS``."""
    takes_along = (holder is not None and spells(scope, path, holder.rpartition(".")[2])
                   and any(spells(scope, path, word) for word in _TAKING_ALONG_WORDS))
    if not takes_along and not any(spells(scope, path, word) for word in _NAMESPACE_WORDS):
        return None
    reads = _whole_reads(path, text)
    found = [(line, how) for name, line, how in reads.namespaces if name == module]
    found += [(line, how) for name, line, how in reads.taken_along if holder is not None and name == holder]
    return f"`{shown_path(path)}` line {found[0][0]} {found[0][1]}" if found else None


@functools.lru_cache(maxsize=MAX_FILES)
def _whole_reads(path: Path, text: str) -> _WholeReads:
    context = context_for(path)
    tree = parsed(text)
    if tree is None or context is None:
        return _NOTHING_READ  # the container's own uses decide whether an unparsable file refuses the fix
    names = imported_names(tree)

    def absolute(expr: ast.expr) -> Optional[str]:
        named = names.qualify(expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None
        return context.absolute(named) if named is not None else None

    namespaces: list[tuple[str, int, str]] = []
    taken_along: list[tuple[str, int, str]] = []
    lines = Mentions(text).words(_NAMESPACE_WORDS | names.spellings((*NAMESPACE_READS, *_TAKING_ALONG)))
    for node in Scopes(tree).index_parts(tree, functools.partial(Mentions.within, lines)):  # the lines that can name one
        if isinstance(node, ast.Call) and node.args:
            callee = names.qualify(node.func) or ""
            read = absolute(node.args[0]) if callee in NAMESPACE_READS else None
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


def _uses_in(
    found: References, names: frozenset[str], attribute: Optional[str], holder: Optional[str], source: str, sequence: bool,
    reads_another_class: Optional[Callable[[ast.expr], bool]] = None, on_an_instance: bool = False,
) -> Iterator[tuple[int, Optional[str], str, ast.expr]]:
    """Each reference in another module to the container under any of ``names`` (or, given, to any
    attribute named ``attribute``, but one that ``reads_another_class`` shows is another class's:
    ``Plain.table`` for ``Rotary.table``), and to the object that holds it: ``(line, the use the runtime
    may not honour or None, the statement, the reference)``. Every fill is such a use: what another module
    stores is not shown to have an owner. The holder (a class, a module-level instance) may be named
    freely, but not handed to other code, which may read it whole; for a container ``on_an_instance`` of
    the holding class, neither may the instance its accessor hands out (``Manager.get_instance()``)."""
    attributes = found.attributes.get(attribute, []) if attribute is not None else []
    uses = [(order, node) for order, node in attributes if reads_another_class is None or not reads_another_class(node)]
    for name in names:
        for order, reference in references_to(found, name):
            top = chain_top(found, reference)
            if not (isinstance(top, ast.Attribute) and top.attr == attribute):  # such a chain is an attribute use above
                uses.append((order, reference))
    compiled = _compiled(found.tree, found.names, spells_a_compiler(source)) if uses else {}
    for _, reference in sorted(uses, key=lambda pair: pair[0]):
        unsafe = _unsafe(reference, found.parents, found.names)
        sees_a_change = walk_that_sees_a_change(found.parents.get, reference, sequence) if unsafe is None else None
        if sees_a_change is not None:
            unsafe = f"a walk: {sees_a_change}"
        function = enclosing_function(reference, found.parents.get) if unsafe is None and compiled else None
        if function in compiled and untraceable(reference, found.parents.get, found.names):
            unsafe = f"`{_statement(reference, found.parents)}` in `{function.name}`, {compiled[function]}, and the runtime lets a compiler trace `[]`, `get`, `in` and `len` only"  # type: ignore[union-attr,index]
        yield reference.lineno, unsafe, _statement(reference, found.parents), reference
    for _, reference in references_to(found, holder) if holder is not None else ():
        top = chain_top(found, reference)
        call = found.parents.get(top)
        if isinstance(call, ast.Call) and top in call.args and found.names.qualify(call.func) not in HOLDER_SAFE_CALLS:
            yield reference.lineno, f"an argument of `{ast.unparse(call)[:60]}`, which may read the object that holds it whole", _statement(reference, found.parents), reference
        elif top is reference and _bound_elsewhere(reference, found.parents):
            yield reference.lineno, f"a value bound to another name (`{_statement(reference, found.parents)}`), whose uses are not followed", _statement(reference, found.parents), reference
        elif on_an_instance and (handed := _instance_handed_on(reference, top, found)) is not None:
            yield reference.lineno, handed, _statement(reference, found.parents), reference


def _instance_handed_on(reference: ast.expr, top: ast.expr, found: References) -> Optional[str]:
    """The holding class's instance as code elsewhere gets it (``Manager.get_instance()``,
    ``Manager._instance``, a metaclass singleton's ``Manager()``), used other than through an attribute:
    returned, handed to other code, or bound to a local that is (``mgr = Manager.get_instance()``, then
    ``copy.deepcopy(mgr)``): a copy, a pickle or a walk of the instance takes the container along, and a
    weak one keeps nothing the copy alone holds. Through an attribute (``mgr.register(m)``,
    ``Manager.get_instance().overrides``) it stays what the analysis of its module sees."""
    first = found.parents.get(reference)
    step = first if isinstance(first, ast.Attribute) and first.value is reference else reference
    if step is not top:
        return None  # ``Manager._instance.overrides``: an attribute of the instance, not the instance
    call = found.parents.get(top)
    if isinstance(call, ast.Call) and call.func is top and (call.args or call.keywords):
        return None  # ``Manager.register(m)``: a method called through the class
    value = call if isinstance(call, ast.Call) and call.func is top else top
    if value is reference:
        return None  # the class itself: ``Manager.x`` and its arguments are read above
    parent = found.parents.get(value)
    if isinstance(parent, ast.Attribute) and parent.value is value:
        return None
    shown = ast.unparse(value)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        name = parent.targets[0].id
        scope = enclosing_function(parent, found.parents.get) or found.tree
        for node in ast.walk(scope):
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
                used = found.parents.get(node)
                if not (isinstance(used, ast.Attribute) and used.value is node):
                    return f"`{name}`, the instance `{shown}` hands out, used whole (`{_statement(node, found.parents)}`)"
        return None
    return f"the instance `{shown}` hands out, used whole (`{_statement(value, found.parents)}`)"


def _bound_elsewhere(node: ast.expr, parents: dict[ast.AST, ast.AST]) -> bool:
    """``self.tracking = tracker.STATE``, ``return STATE``, ``[STATE]``: the object itself goes on under
    another name, where what is done with it is not followed."""
    parent = parents.get(node)
    while isinstance(parent, (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Starred)):
        node, parent = parent, parents.get(parent)  # type: ignore[assignment]
    return isinstance(parent, (ast.Assign, ast.AnnAssign, ast.NamedExpr, ast.Return, ast.Yield, ast.keyword)) and getattr(parent, "value", None) is node


def _statement(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> str:
    """The statement around ``node``, as a proof line shows it (its first line, shortened)."""
    current: Optional[ast.AST] = node
    while current is not None and not isinstance(current, ast.stmt):
        current = parents.get(current)
    if current is None or isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.If, ast.While, ast.With, ast.Try)):
        current = node
    shown = ast.unparse(current).splitlines()[0]
    return shown if len(shown) <= 80 else shown[:77] + "..."


#: What makes a copy of the container: of the replacement, a weak container too.
_COPYING_METHODS = frozenset({"copy", "__copy__"})
#: What fills a map: another module's fill of a ``WeakValueMap`` may store what only the map would keep.
_FILLING_METHODS = frozenset({"setdefault", "update", "fromkeys", "__setitem__", "__ior__", "append", "extend", "insert", "add", "__iadd__"})


def _unsafe(reference: ast.expr, parents: dict[ast.AST, ast.AST], names: Names) -> Optional[str]:
    parent = parents.get(reference)
    if _fills(reference, parent, parents):
        return f"a fill (`{ast.unparse(parents.get(parent) or parent)[:60]}`), where what it stores is not shown to have an owner"
    if isinstance(parent, ast.Subscript) and parent.value is reference:
        return None
    if isinstance(parent, ast.Call) and parent.func is reference:
        return None  # a cached function called: its cache is not what the caller sees
    if isinstance(parent, ast.Attribute):
        call = parents.get(parent)
        if parent.attr in _COPYING_METHODS and isinstance(call, ast.Call):
            return f"a copy (`{ast.unparse(call)[:60]}`), which is weak too, and whose uses there are not followed"
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
    """``X[k] = v``, ``X.setdefault(k, v)``, ``X.update(...)``, ``X |= ...``, ``X.append(v)``."""
    if isinstance(parent, ast.Subscript) and parent.value is reference:
        return isinstance(parent.ctx, ast.Store)
    if isinstance(parent, ast.Attribute) and parent.attr in _FILLING_METHODS:
        return True
    return isinstance(parent, ast.AugAssign) and parent.target is reference


