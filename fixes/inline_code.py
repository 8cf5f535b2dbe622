"""The inline runtime's block for one module (``inline.py`` says what the block is): the runtime names the
module's fixes use and what they reach, as private names without annotations, built with libcst, and where
the block goes. Only a module that is fixed needs one, so this module (and libcst) is imported only then,
not by every run that merely checks."""
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

from .inline import END, BlockEdit, InlineError, bound_names, find_block, taken_names
from .lines import lines_of
from .parts import part_code, parts_for

_TYPE_IGNORE = re.compile(r"#\s*type:\s*ignore(?:\[[^\]]*\])?\s*")
_BUILTINS = frozenset(dir(builtins))


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


def _builtins_called(code: str) -> frozenset[str]:
    """The builtins ``code`` reads by name and binds nowhere itself."""
    tree = ast.parse(code)
    names = [node for node in ast.walk(tree) if isinstance(node, ast.Name)]
    bound = {node.id for node in names if not isinstance(node.ctx, ast.Load)}
    bound |= {node.arg for node in ast.walk(tree) if isinstance(node, ast.arg)}
    bound |= {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    return frozenset(node.id for node in names if isinstance(node.ctx, ast.Load) and node.id in _BUILTINS) - bound


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
    bound = [set(bound_names(statement)) for statement in tree.body]
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
