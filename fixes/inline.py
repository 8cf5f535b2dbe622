"""The runtime inline: the code a fixed module uses, inserted into the module itself, between two marker lines.

An import of the runtime must resolve however the module is run (by path, with ``python -m``, through
``runpy``, ``spec_from_file_location``, a ``sys.path`` entry a script adds, a zipapp, a namespace package...),
and no list of layouts is complete; a vendored file can also be found by code that walks a directory. Code
inside the module has no import to resolve and no file to discover, as DeepSpeed's maintainers fixed
``debug.py`` by hand with a class inside it. So by default the codemod writes into each fixed module a block
holding what that module's fixes use, and nothing else:

- only the definitions the module's runtime names reach (its ``WeakIdSet`` without ``StrictWeakIdSet``);
- every name private (``WeakIdMap`` -> ``_WeakIdMap``, ``import weakref as _weakref``), so ``from mod import
  *`` and ``__all__``-less walks see nothing new, and renamed (``_MISSING_1``) wherever the module already
  spells a name of ours;
- without annotations: evaluated in a module without ``from __future__ import annotations`` they would need
  names defined later, and at module level they would add entries to the module's ``__annotations__``
  (``typing.get_type_hints(module)``); ``# type: ignore`` comments and ``@overload`` stubs go with them. The
  classes keep their generic bases, so ``_WeakIdMap[nn.Module, str]`` is still an annotation a type checker
  reads.

Its first line names the runtime names it holds: a later run recognises the block, leaves it as it is when
it holds what the new fixes use, and otherwise writes it again with the names it held and the new ones (the
module's earlier fixes use them), under the names it bound before.
"""
from __future__ import annotations

import ast
import builtins
import keyword
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Optional, Sequence, Union

import libcst as cst
from libcst.metadata import GlobalScope, MetadataWrapper, ScopeProvider

import flake8_weakglobals

from .lines import lines_of
from .parts import part_code, parts_for

_BEGIN = re.compile(r"^# --- flake8-weakglobals (?P<version>\S+), its runtime inline: (?P<names>[A-Za-z_, ]+)\.")
END = "# --- end of flake8-weakglobals' runtime"
_TYPE_IGNORE = re.compile(r"#\s*type:\s*ignore(?:\[[^\]]*\])?\s*")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BUILTINS = frozenset(dir(builtins))


class InlineError(Exception):
    """The module holds a block of ours that cannot be read (its end line is gone); the message says what to do."""


@dataclass(frozen=True)
class Block:
    """The inline runtime a module holds: lines ``first``..``last`` (0-based, both marker lines included)."""

    first: int
    last: int
    names: tuple[str, ...]  # the runtime names it holds (``WeakIdMap``), as its first line lists them
    bound: frozenset[str]  # every name its code binds in the module


def find_block(lines: Sequence[str]) -> Optional[Block]:
    """The block of ours in a module's ``lines`` (each with its line ending), if any."""
    first = next((number for number, line in enumerate(lines) if _BEGIN.match(line)), None)
    if first is None:
        return None
    last = next((number for number in range(first + 1, len(lines)) if lines[number].rstrip("\r\n") == END), None)
    if last is None:
        raise InlineError(f"line {first + 1} opens flake8-weakglobals' inline runtime, but its end line `{END}` is gone: "
                          "restore it, or remove the block and run the fix again")
    match = _BEGIN.match(lines[first])
    assert match is not None
    names = tuple(name.strip() for name in match["names"].split(","))
    code = ast.parse("".join(lines[first : last + 1]))
    return Block(first, last, names, frozenset(name for statement in code.body for name in _bound(statement)))


@dataclass(frozen=True)
class InlineCode:
    """A block's text (marker lines included, each line ending in ``newline``) and the name each runtime name
    and helper is bound to in the module."""

    text: str
    names: dict[str, str]
    builtins: frozenset[str] = frozenset()  # Python's builtins the block's code calls by name (``list``, ``range``)


def inline_code(wanted: Iterable[str], taken: Iterable[str] = (), ours: Iterable[str] = (), newline: str = "\n") -> InlineCode:
    """The block holding the runtime names ``wanted`` and what they use. ``taken`` are the identifiers the
    module spells outside any block of ours, which the block's names avoid, unless a block of ours binds
    them already (``ours``): then they are its own, and keep their names."""
    held = tuple(sorted(set(wanted)))
    parts = parts_for(held)
    module, origins, part_of = _parsed(parts)
    kept = sorted(_reachable(module, held))
    module = module.with_changes(body=[module.body[number] for number in kept])
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    scope = next(scope for scope in wrapper.resolve(ScopeProvider).values() if isinstance(scope, GlobalScope))
    imported: dict[str, str] = {}  # name -> the module it comes from ("" for a module imported whole)
    renamed: dict[str, str] = {}
    nodes: dict[cst.CSTNode, str] = {}
    chooser = _Names(set(taken), set(ours))
    for assignment in sorted(scope.assignments, key=lambda assignment: assignment.name):
        if isinstance(assignment.node, (cst.Import, cst.ImportFrom)):
            if not assignment.references:
                continue  # used only in an annotation, or by a definition left out
            imported[assignment.name] = origins[assignment.name]
        elif not isinstance(assignment.node, (cst.Name, cst.FunctionDef, cst.ClassDef)):
            raise AssertionError(f"the runtime binds {assignment.name} in a way the inline form does not rename")
        renamed.setdefault(assignment.name, chooser.pick(assignment.name))
        nodes.update((access.node, assignment.name) for access in assignment.references)
        if not isinstance(assignment.node, (cst.Import, cst.ImportFrom)):
            nodes[assignment.node] = assignment.name
    module = module.visit(_Renamed(nodes, renamed))
    imports = _import_lines(imported, renamed)
    sections = []
    for part in parts:
        own = [statement for number, statement in zip(kept, module.body) if part_of[number] == part and not _is_import(statement)]
        if own:
            code = "".join(module.code_for_node(statement) for statement in [own[0].with_changes(leading_lines=()), *own[1:]])
            sections.append(f"# {part}: {part_code(part).summary}\n{code}")
    header = (f"# --- flake8-weakglobals {flake8_weakglobals.__version__}, its runtime inline: {', '.join(held)}. MIT licence; "
              "documented in\n# flake8_weakglobals/runtime/. Do not edit: `python -m fixes.apply` rewrites this block.\n")
    # isort and ruff leave the block's imports alone, and never sort the module's own imports into it.
    imports = f"# isort: off\n{imports}# isort: on\n"
    text = header + imports + "\n\n" + "\n\n".join(section.rstrip("\n") + "\n" for section in sections) + END + "\n"
    return InlineCode(text.replace("\n", newline), renamed, _builtins_called(text))


@dataclass(frozen=True)
class BlockEdit:
    """What a fix does to a module's inline runtime: lines ``remove`` (0-based, ``[start, stop)``) go, and
    ``lines`` go in before line ``insert`` (of the module as it was); nothing when the block holds enough."""

    names: dict[str, str]  # every name the block binds: the runtime's -> the module's (``WeakIdMap`` -> ``_WeakIdMap``)
    holds: tuple[str, ...]  # the runtime names the block holds once written
    remove: Optional[tuple[int, int]] = None
    insert: int = 0
    lines: tuple[str, ...] = ()
    added: int = 0  # lines the module gains


def plan_block(
    lines: Sequence[str], needed: Iterable[str], position: int, first_edit: int, newline: str,
    star_names: Callable[[str], Optional[list[str]]] = lambda module: None,
) -> BlockEdit:
    """The block a module's fixes need, given its ``lines``: the block it holds, written again with the
    names ``needed`` too when it lacks one (in place, or moved up to ``position`` when an edit at
    ``first_edit``, 1-based, comes before it: the block must run first); a new block after line
    ``position`` (1-based: after the module's leading imports), a blank line above it (as isort wants after
    imports) and two below (before a definition)."""
    block = find_block(lines)
    held = set(block.names) if block else set()
    outside = [*lines[: block.first], *lines[block.last + 1 :]] if block else lines
    wanted = held | set(needed)
    code = inline_code(wanted, taken_names("".join(outside)), block.bound if block else (), newline)
    shadowed = _shadowed_builtins("".join(outside), code.builtins, star_names)
    if shadowed:
        raise InlineError(f"the module binds {shadowed} at its top level, where the inline runtime's code would call it as "
                          "Python's builtin; fix it with `--runtime vendor` or `--runtime import`")
    new = tuple(lines_of(code.text))
    if block is not None and first_edit - 1 > block.last:  # above every edit: it stays where it is
        if wanted <= held:
            return BlockEdit(code.names, tuple(sorted(held)))
        return BlockEdit(code.names, tuple(sorted(wanted)), (block.first, block.last + 1), block.first, new,
                         len(new) - (block.last + 1 - block.first))
    removed = (0, 0)
    if block is not None:  # the block and the blank lines after it go; it is written again higher up
        stop = block.last + 1
        while stop < len(lines) and stop - block.last <= 2 and not lines[stop].strip():
            stop += 1
        removed = (block.first, stop)
    before = sum(1 for _ in _blank_run(lines, position - 1, -1))
    after = sum(1 for _ in _blank_run(lines, position, 1))
    blank = (newline,)
    inserted = (blank if position > 0 and not before else ()) + new + (
        blank * (2 - after) if position < len(lines) and after < 2 else ())
    return BlockEdit(code.names, tuple(sorted(wanted)), removed if block else None, position, inserted,
                     len(inserted) - (removed[1] - removed[0]))


def _builtins_called(code: str) -> frozenset[str]:
    """The builtins ``code`` reads by name and binds nowhere itself."""
    tree = ast.parse(code)
    names = [node for node in ast.walk(tree) if isinstance(node, ast.Name)]
    bound = {node.id for node in names if not isinstance(node.ctx, ast.Load)}
    bound |= {node.arg for node in ast.walk(tree) if isinstance(node, ast.arg)}
    bound |= {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    return frozenset(node.id for node in names if isinstance(node.ctx, ast.Load) and node.id in _BUILTINS) - bound


def _shadowed_builtins(source: str, used: frozenset[str], star_names: Callable[[str], Optional[list[str]]]) -> str:
    """Which builtin the block calls that the module binds globally (``def list()``, ``from torch import
    *``, which binds ``range`` and ``sum``), in words; "" for none. The block's code runs in the module's
    namespace, so it would call the module's. A star import binds what the project index reads in that
    module (``star_names``, with the module as written: ``.x`` for a relative one); one it cannot read
    could bind anything."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    bound: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and any(alias.name == "*" for alias in statement.names):
            written = "." * statement.level + (statement.module or "")
            starred = star_names(written)
            if starred is None:
                return f"whatever `from {written} import *` binds, which the project index cannot read,"
            bound.update(starred)
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).partition(".")[0] for alias in statement.names)
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(statement.name)
        else:
            bound.update(node.id for node in ast.walk(statement) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store))
    clash = sorted(bound & used)
    return ", ".join(f"`{name}`" for name in clash)


def _blank_run(lines: Sequence[str], start: int, step: int) -> Iterable[int]:
    """The blank lines from ``start`` on, going ``step`` (up: -1, down: 1), until the first line with text."""
    number = start
    while 0 <= number < len(lines) and not lines[number].strip():
        yield number
        number += step


def taken_names(text: str) -> set[str]:
    """Every identifier ``text`` spells (in code, strings or comments): a name of the block that is one of
    them is renamed, whatever the module does with it."""
    return set(_IDENTIFIER.findall(text))


class _Names:
    """Private names for the block, none of them an identifier the module spells (unless the block bound it)."""

    def __init__(self, taken: set[str], ours: set[str]) -> None:
        self.taken = taken - ours
        self.used: set[str] = set()

    def pick(self, name: str) -> str:
        base = name if name.startswith("_") else f"_{name}"
        candidate, number = base, 0
        while candidate in self.taken or candidate in self.used or keyword.iskeyword(candidate):
            number += 1
            candidate = f"{base}_{number}"
        self.used.add(candidate)
        return candidate


def _parsed(parts: Sequence[str]) -> tuple[cst.Module, dict[str, str], list[str]]:
    """The parts' code as one module, imports first (one statement per name), without annotations; the module
    each imported name comes from (``""``: the name is a module); and the part of each statement."""
    origins: dict[str, str] = {}
    for part in parts:
        for source, names in part_code(part).imports.items():
            origins.update(dict.fromkeys(names, source))
    imports = [f"from {origins[name]} import {name}\n" if origins[name] else f"import {name}\n" for name in sorted(origins)]
    bodies = [cst.parse_module(part_code(part).body).visit(_WithoutAnnotations()).body for part in parts]
    part_of = ["" for _ in imports] + [part for part, body in zip(parts, bodies) for _ in body]
    module = cst.parse_module("".join(imports)).visit(_WithoutAnnotations())
    return module.with_changes(body=[*module.body, *(statement for body in bodies for statement in body)]), origins, part_of


def _reachable(module: cst.Module, wanted: Sequence[str]) -> set[int]:
    """The numbers of the top-level statements that define ``wanted`` and what those use, by name (a local
    that shares a global's name keeps that global too: a few lines more, never fewer)."""
    tree = ast.parse(module.code)
    bound = [set(_bound(statement)) for statement in tree.body]
    used = [{node.id for node in ast.walk(statement) if isinstance(node, ast.Name)} for statement in tree.body]
    kept: set[int] = set()
    pending = list(wanted)
    while pending:
        name = pending.pop()
        for number, names in enumerate(bound):
            if name in names and number not in kept:
                kept.add(number)
                pending.extend(used[number])
    return kept


def _bound(statement: ast.stmt) -> list[str]:
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [statement.name]
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return [alias.asname or alias.name.partition(".")[0] for alias in statement.names]
    targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
    return [node.id for target in targets if target is not None for node in ast.walk(target) if isinstance(node, ast.Name)]


def _is_import(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], (cst.Import, cst.ImportFrom))


def _import_lines(imported: dict[str, str], renamed: dict[str, str]) -> str:
    """``import weakref as _weakref``, ``from collections.abc import KeysView as _KeysView, ...``: a line per
    module, or more where one would pass 110 characters."""
    by_module: dict[str, list[str]] = {}
    for name, source in sorted(imported.items()):
        by_module.setdefault(source, []).append(f"{name} as {renamed[name]}")
    lines = [f"import {alias}\n" for alias in by_module.pop("", [])]
    for source, aliases in sorted(by_module.items()):
        line = f"from {source} import "
        for alias in aliases:
            if line.endswith(" import ") or len(line) + len(alias) + 2 <= 110:
                line += alias if line.endswith(" import ") else f", {alias}"
            else:
                lines.append(line + "\n")
                line = f"from {source} import {alias}"
        lines.append(line + "\n")
    return "".join(lines)


class _WithoutAnnotations(cst.CSTTransformer):
    """The code without annotations, ``@overload`` stubs and ``# type: ignore`` comments (see the module's
    docstring); a generic base class stays."""

    def leave_Param(self, original: cst.Param, updated: cst.Param) -> cst.Param:
        if updated.annotation is None:
            return updated
        equal = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")) if updated.default else updated.equal
        return updated.with_changes(annotation=None, equal=equal)

    def leave_FunctionDef(
        self, original: cst.FunctionDef, updated: cst.FunctionDef
    ) -> Union[cst.FunctionDef, cst.RemovalSentinel]:
        if any(isinstance(d.decorator, cst.Name) and d.decorator.value == "overload" for d in updated.decorators):
            return cst.RemoveFromParent()
        return updated.with_changes(returns=None)

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> Union[cst.SimpleStatementLine, cst.RemovalSentinel]:
        body = [_unannotated(statement) for statement in updated.body]
        kept = [statement for statement in body if statement is not None]
        return updated.with_changes(body=kept) if kept else cst.RemoveFromParent()

    def leave_TrailingWhitespace(self, original: cst.TrailingWhitespace, updated: cst.TrailingWhitespace) -> cst.TrailingWhitespace:
        if updated.comment is None or not _TYPE_IGNORE.match(updated.comment.value):
            return updated
        rest = _TYPE_IGNORE.sub("", updated.comment.value, count=1)
        if not rest:
            return updated.with_changes(whitespace=cst.SimpleWhitespace(""), comment=None)
        return updated.with_changes(comment=cst.Comment(rest))


def _unannotated(statement: cst.BaseSmallStatement) -> Optional[cst.BaseSmallStatement]:
    """``x: T = v`` as ``x = v``; ``x: T`` (a declaration only) as nothing."""
    if not isinstance(statement, cst.AnnAssign):
        return statement
    if statement.value is None:
        return None
    return cst.Assign([cst.AssignTarget(statement.target)], statement.value, semicolon=statement.semicolon)


class _Renamed(cst.CSTTransformer):
    """Every global of the block under its new name: ``nodes`` maps what scope analysis found (each reference,
    each assigned name, each top-level definition) to the name it binds. Imports are written again, aliased."""

    def __init__(self, nodes: dict[cst.CSTNode, str], renamed: dict[str, str]) -> None:
        super().__init__()
        self.nodes = nodes
        self.renamed = renamed

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        name = self.nodes.get(original)
        return updated if name is None else updated.with_changes(value=self.renamed[name])

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        name = self.nodes.get(original)
        return updated if name is None else updated.with_changes(name=cst.Name(self.renamed[name]))

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        name = self.nodes.get(original)
        return updated if name is None else updated.with_changes(name=cst.Name(self.renamed[name]))
