"""Where the runtime code a file's fixes use goes: the one decision, read by the rewrite and the report.

- A file that already imports the runtime (``flake8_weakglobals.runtime``, or a vendored copy, also through
  the two-way import of a script) keeps that import, extended with the names it lacks.
- A file that already holds the inline runtime keeps it, written again when it lacks a name.
- Any other file gets what ``--runtime`` says: ``inline`` (the default: the code in the file itself, no
  import to resolve), ``vendor`` (an import of a vendored copy, which ``fixes/vendor.py`` places and checks
  resolves) or ``import`` (an import of the installed package).

New runtime code, an import or a block, goes after the leading imports, before the first rewritten statement.
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Callable, Iterable, Optional, Sequence, Union

from flake8_weakglobals.index.project import context_for
from flake8_weakglobals.syntax.qualified_names import is_our_runtime
from flake8_weakglobals.syntax.scopes import first_line

from .inline import BlockEdit, find_block
from .lines import newline_of
from .vendor import VENDORED_MODULE, RuntimeLocation, existing_location, runtime_location

#: Where the runtime comes from: an import (and the vendored copy it needs, if any), or the inline block.
Placement = Union[RuntimeLocation, BlockEdit]


def place(path: Path, tree: ast.Module, lines: Sequence[str], needed: Iterable[str], first_edit: int, mode: str) -> Placement:
    """Where the runtime names ``needed`` come from for the file at ``path`` (parsed as ``tree``, its text
    ``lines``), whose first rewritten line is ``first_edit``; raises ``vendor.Unresolvable`` for an import
    that would not resolve, and ``inline.InlineError`` for a block of ours that cannot be read."""
    existing = existing_runtime_import(tree)
    if existing is not None:
        return existing_location(path, existing.module or "")
    if mode == "inline" or find_block(lines) is not None:
        from .inline_code import plan_block  # libcst loads only for a module that is fixed

        return plan_block(lines, needed, runtime_position(tree, first_edit), first_edit, newline_of(lines), _star_names_of(path))
    return runtime_location(path, mode)


def existing_runtime_import(tree: ast.Module) -> Optional[ast.ImportFrom]:
    """An existing top-level import from our runtime (installed or vendored) to extend, rather than adding a
    second line: a file that imports ``flake8_weakglobals.runtime`` keeps importing from there."""
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and not statement.level and is_our_runtime(statement.module or ""):
            return statement
        if _two_way_import(statement):
            return statement.body[0]  # type: ignore[attr-defined,return-value]
    return None


def _two_way_import(statement: ast.stmt) -> bool:
    """``try: from ._weakglobals_runtime import ...`` / ``except ImportError: from _weakglobals_runtime
    import ...``, the import of a file imported both as a package's module and by its bare name."""
    if not (isinstance(statement, ast.Try) and len(statement.body) == 1 and len(statement.handlers) == 1):
        return False
    first, handler = statement.body[0], statement.handlers[0]
    return (
        isinstance(first, ast.ImportFrom) and first.level == 1 and first.module == VENDORED_MODULE
        and isinstance(handler.type, ast.Name) and handler.type.id == "ImportError" and len(handler.body) == 1
        and isinstance(handler.body[0], ast.ImportFrom) and not handler.body[0].level
        and handler.body[0].module == VENDORED_MODULE
    )


def runtime_position(tree: ast.Module, first_edit: int) -> int:
    """The line after which a new runtime import or inline block goes: the last top-level import before the
    first rewritten statement (1-based ``first_edit``), else the docstring, else just before the first
    statement (after a shebang, a coding cookie and header comments). So the runtime is there before any
    code of the module runs."""
    body = tree.body
    docstring = body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)
    position = body[0].end_lineno if docstring else first_line(body[0]) - 1
    for statement in body:
        if (statement.end_lineno or statement.lineno) >= first_edit:
            break
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            position = statement.end_lineno  # type: ignore[assignment]
    return position  # type: ignore[return-value]


def _star_names_of(path: Path) -> Callable[[str], Optional[list[str]]]:
    """What ``from MODULE import *`` binds in the file at ``path``, as the project index reads ``MODULE``
    (written as in the file, relative or not); None for a module outside the project (an installed
    package such as torch builds its ``__all__`` at import, which no reading shows) or one the index cannot
    read."""
    context = context_for(path)

    def star_names(written: str) -> Optional[list[str]]:
        if context is None:
            return None
        absolute = context.absolute(written)
        bases = [root.joinpath(*absolute.split(".")) for root in context.index.roots]
        in_project = any((base / "__init__.py").is_file() or base.with_name(base.name + ".py").is_file() for base in bases)
        if not in_project or context.index.module(absolute) is None:
            return None
        return [name for name, _ in context.index.star_names(absolute)]

    return star_names
