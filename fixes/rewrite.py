"""Apply findings' edits with libcst: the rewritten expressions and one import line change, nothing else.

Edits name expressions by ``ast`` span; this module finds the libcst node with exactly that span and type
(``ast`` columns are UTF-8 bytes, libcst's are characters), so comments and formatting around it survive.
Names the fix displaces (``Dict`` in ``Dict[nn.Module, str]``) leave their import only when nothing else
uses them, so pyflakes sees nothing new.
"""
from __future__ import annotations

from typing import Iterable, Mapping, Optional, Sequence, Union

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from flake8_weakglobals.findings import Edit, EditKind, Finding, Span

_NODE_TYPES: dict[EditKind, tuple[type, ...]] = {
    EditKind.WRAP: (cst.Dict, cst.DictComp, cst.Set, cst.SetComp),
    EditKind.RENAME_CALLEE: (cst.Call,),
    EditKind.DEFAULT_FACTORY: (cst.Call,),
    EditKind.UNWRAP_ID: (cst.Call,),
    EditKind.RENAME_GENERIC: (cst.Name, cst.Attribute),
}
_ATOMS = (cst.Name, cst.Attribute, cst.Subscript, cst.Call, cst.SimpleString, cst.Integer)


class RewriteError(Exception):
    """The edits do not match the source (a bug, never silently ignored: the file is left untouched)."""


def rewrite(source: str, findings: Sequence[Finding], runtime_module: str) -> str:
    """``source`` with every edit of ``findings`` applied and the runtime imported from ``runtime_module``."""
    lines = source.splitlines(keepends=True)
    edits = [edit for finding in findings for edit in finding.edits]
    wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    position = _import_position(wrapper.module.body, positions, min(edit.span.line for edit in edits))
    applier = _ApplyEdits({_character_span(edit.span, lines): edit for edit in edits})
    module = wrapper.visit(applier)
    if applier.pending:
        edit = next(iter(applier.pending.values()))
        raise RewriteError(f"line {edit.span.line}: cannot find the expression to rewrite ({edit.kind.value})")
    needed = sorted({name for finding in findings for name in finding.runtime_names})
    body = _add_import(list(module.body), position, runtime_module, needed)
    unused = {name for name in applier.displaced if not _still_used(module, name)}
    return module.with_changes(body=_drop_imports(body, unused)).code


def _character_span(span: Span, lines: list[str]) -> tuple[int, int, int, int]:
    def column(line: int, byte_column: int) -> int:
        return len(lines[line - 1].encode("utf-8")[:byte_column].decode("utf-8", errors="ignore"))

    return span.line, column(span.line, span.col), span.end_line, column(span.end_line, span.end_col)


def _root_name(expression: cst.BaseExpression) -> str:
    while isinstance(expression, cst.Attribute):
        expression = expression.value
    return expression.value if isinstance(expression, cst.Name) else ""


def _dotted(name: str) -> cst.BaseExpression:
    return cst.parse_expression(name)


class _ApplyEdits(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, by_span: dict[tuple[int, int, int, int], Edit]) -> None:
        super().__init__()
        self.pending = dict(by_span)
        self.displaced: set[str] = set()

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> Union[cst.CSTNode, cst.RemovalSentinel]:
        if not isinstance(original, cst.BaseExpression) or not self.pending:
            return updated
        position = self.get_metadata(PositionProvider, original, None)
        if position is None:
            return updated
        key = (position.start.line, position.start.column, position.end.line, position.end.column)
        edit = self.pending.get(key)
        if edit is None or not isinstance(original, _NODE_TYPES[edit.kind]):
            return updated
        del self.pending[key]
        return self._apply(edit, updated)  # type: ignore[arg-type]

    def _apply(self, edit: Edit, node: cst.BaseExpression) -> cst.BaseExpression:
        if edit.kind is EditKind.WRAP:
            empty = isinstance(node, cst.Dict) and not node.elements
            inner = node.with_changes(lpar=[], rpar=[])
            arguments = [] if empty else [cst.Arg(inner)]
            return cst.Call(_dotted(edit.name), arguments, lpar=node.lpar, rpar=node.rpar)
        if edit.kind is EditKind.RENAME_GENERIC:
            self.displaced.add(_root_name(node))
            return _dotted(edit.name).with_changes(lpar=node.lpar, rpar=node.rpar)
        assert isinstance(node, cst.Call)
        if edit.kind is EditKind.UNWRAP_ID:
            value = node.args[0].value
            if isinstance(value, _ATOMS) or value.lpar:
                return value.with_changes(lpar=[*node.lpar, *value.lpar], rpar=[*value.rpar, *node.rpar])
            return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        self.displaced.add(_root_name(node.func))
        if edit.kind is EditKind.RENAME_CALLEE:
            return node.with_changes(func=_dotted(edit.name))
        factory, *rest = node.args or [None]
        if factory is None:
            return node.with_changes(func=_dotted(edit.name), args=[])
        keyword = cst.Arg(
            factory.value,
            keyword=cst.Name("default_factory"),
            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
        )
        positional = [argument.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for argument in rest]
        return node.with_changes(func=_dotted(edit.name), args=[*positional, keyword])


class _NameUses(cst.CSTVisitor):
    """Counts uses of a name outside import statements."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.found = False

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.found = self.found or node.value == self.name

    def visit_SimpleString(self, node: cst.SimpleString) -> None:  # ``__all__ = ["Dict"]`` keeps it imported
        self.found = self.found or node.evaluated_value == self.name


def _still_used(module: cst.Module, name: str) -> bool:
    if not name:
        return True
    uses = _NameUses(name)
    module.visit(uses)
    return uses.found


def _bound_name(alias: cst.ImportAlias) -> str:
    if alias.asname is not None:
        return alias.asname.name.value  # type: ignore[union-attr]
    return _root_name(alias.name)


def _drop_imports(body: Sequence[cst.BaseStatement], unused: set[str]) -> list[cst.BaseStatement]:
    """Remove top-level imports of ``unused`` names (what the fix displaced and nothing else uses)."""
    if not unused:
        return list(body)
    kept: list[cst.BaseStatement] = []
    inherited: Optional[Sequence[cst.EmptyLine]] = None  # a removed line's comments and blank lines
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            small = [_without(part, unused) for part in statement.body]
            remaining = [part for part in small if part is not None]
            if not remaining:
                inherited = statement.leading_lines if inherited is None else [*inherited, *statement.leading_lines]
                continue
            statement = statement.with_changes(body=remaining)
        if inherited is not None:
            statement = statement.with_changes(leading_lines=inherited)  # type: ignore[call-arg]
            inherited = None
        kept.append(statement)
    return kept


def _without(part: cst.BaseSmallStatement, unused: set[str]) -> cst.BaseSmallStatement | None:
    if not isinstance(part, (cst.Import, cst.ImportFrom)) or isinstance(part.names, cst.ImportStar):
        return part
    names = [alias for alias in part.names if _bound_name(alias) not in unused]
    if len(names) == len(part.names):
        return part
    if not names:
        return None
    names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return part.with_changes(names=names)


def _is_import(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(part, (cst.Import, cst.ImportFrom)) for part in statement.body
    )


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _imported_names(body: Iterable[cst.BaseStatement]) -> set[str]:
    return {
        _bound_name(alias)
        for statement in body
        if _is_import(statement)
        for part in statement.body  # type: ignore[attr-defined]
        if not isinstance(part.names, cst.ImportStar)
        for alias in part.names
    }


def _import_position(body: Sequence[cst.BaseStatement], positions: Mapping[cst.CSTNode, CodeRange], first_edit: int) -> int:
    """After the docstring and the last top-level import that precedes the first rewritten statement."""
    position = 1 if body and _is_docstring(body[0]) else 0
    for index, statement in enumerate(body):
        if positions[statement].end.line >= first_edit:
            break
        if _is_import(statement):
            position = index + 1
    return position


def _add_import(body: list[cst.BaseStatement], position: int, module: str, names: list[str]) -> list[cst.BaseStatement]:
    """Import ``names`` once: extend an existing ``from <runtime> import ...``, else add one line."""
    missing = [name for name in names if name not in _imported_names(body)]
    if not missing:
        return body
    for index, statement in enumerate(body):
        if not _is_import(statement):
            continue
        for part in statement.body:  # type: ignore[attr-defined]
            if (
                isinstance(part, cst.ImportFrom)
                and not part.relative
                and part.module is not None
                and not isinstance(part.names, cst.ImportStar)
                and cst.Module([]).code_for_node(part.module) == module
            ):
                aliases = [*part.names, *(cst.ImportAlias(cst.Name(name)) for name in missing)]
                aliases = [alias.with_changes(comma=cst.MaybeSentinel.DEFAULT) for alias in aliases]
                parts = [part.with_changes(names=aliases) if other is part else other for other in statement.body]  # type: ignore[attr-defined]
                return [*body[:index], statement.with_changes(body=parts), *body[index + 1 :]]
    new = cst.parse_statement(f"from {module} import {', '.join(missing)}\n")
    return [*body[:position], new, *body[position:]]
