"""Apply findings' edits with libcst, one top-level statement at a time; every other line stays byte for byte.

Only the top-level statements that hold an edit, or an import the fix changes, are parsed with libcst: a big
file with one pinning dict costs the parse of that one statement, and nothing outside those statements
can change. Edits name expressions by ``ast`` span; the libcst node with exactly that span and type is
rewritten (``ast`` columns are UTF-8 bytes, libcst's are characters), keeping comments and formatting. The
runtime import is one new line after the leading imports, binding private names (``WeakIdMap as
_WeakIdMap``: a star import of a module without ``__all__`` must not export ours); an import the fix left
unused (``Dict`` once ``Dict[nn.Module, str]`` became ``_WeakIdMap[...]``) is removed, so pyflakes sees
nothing new.
"""
from __future__ import annotations

import ast
import bisect
import collections
import dataclasses
import re
from dataclasses import dataclass, field
from typing import Optional, Sequence, Union

import libcst as cst
from libcst.metadata import CodePosition, MetadataWrapper, PositionProvider

from flake8_weakglobals.rules.findings import Edit, EditKind, Finding, Span
from flake8_weakglobals.syntax.scopes import first_line

from .inline import BlockEdit
from .lines import lines_of, newline_of
from .placement import Placement, existing_runtime_import, runtime_position
from .vendor import VENDORED_MODULE

_NODE_TYPES: dict[EditKind, tuple[type, ...]] = {
    EditKind.WRAP: (cst.Dict, cst.DictComp, cst.Set, cst.SetComp, cst.List, cst.ListComp),
    EditKind.RENAME_CALLEE: (cst.Call,),
    EditKind.DEFAULT_FACTORY: (cst.Call,),
    EditKind.UNWRAP_ID: (cst.Call,),
    EditKind.RENAME_GENERIC: (cst.Name, cst.Attribute),
}
_ATOMS = (cst.Name, cst.Attribute, cst.Subscript, cst.Call, cst.SimpleString, cst.Integer)
_ENDINGS = ("\n", "\r")
#: The container type named by a ``# type:`` comment: ``# type: set``, ``# type: Dict[nn.Module, str]``.
_TYPE_COMMENT = re.compile(
    r"^(#\s*type:\s*)(?:[\w.]*\.)?(?:dict|set|list|Dict|Set|List|DefaultDict|defaultdict|OrderedDict|MutableMapping|MutableSet|"
    r"MutableSequence|deque|Deque|WeakKeyDictionary|WeakSet)\b"
)


class RewriteError(Exception):
    """The edits do not match the source (a bug, never silently ignored: the file is left untouched)."""


@dataclass
class _Chunk:
    """Consecutive lines holding whole top-level statements, and what to do to them."""

    first: int  # 1-based, inclusive
    last: int
    statements: list[ast.stmt]
    edits: list[Edit] = field(default_factory=list)
    drop: set[str] = field(default_factory=set)  # imported names to remove
    extend: list[tuple[str, str]] = field(default_factory=list)  # (name, local name) to add to the runtime import here


def rewrite(source: str, tree: ast.Module, findings: Sequence[Finding], runtime: Placement) -> str:
    """``source`` (parsed as ``tree``) with every edit of ``findings`` applied, and the runtime they use where
    ``runtime`` puts it: the inline block (``BlockEdit``), or an import of ``runtime.module`` (with
    ``both_ways``, relative, and by its bare name if that fails: the file is imported both as a package's
    module and with its own directory on ``sys.path``), one line of its own or added to the file's import of ours."""
    lines = lines_of(source)
    needed = sorted({name for finding in findings for name in finding.runtime_names})
    bound = _imported_names(tree)
    runtime_import = None if isinstance(runtime, BlockEdit) else existing_runtime_import(tree)
    holder = _holding_statement(tree, runtime_import)
    local = dict(runtime.names) if isinstance(runtime, BlockEdit) else local_runtime_names(runtime_import)
    runtime_module = "" if isinstance(runtime, BlockEdit) else runtime_import.module if runtime_import else runtime.module
    missing = [name for name in needed if name not in local]
    local.update((name, private_name(name)) for name in missing)
    edits = [_named_locally(edit, local) for finding in findings for edit in finding.edits]
    displaced = collections.Counter(edit.displaces for edit in edits if edit.displaces)
    uses = _name_uses(tree, set(displaced)) if displaced else collections.Counter()
    removable = bound | {name for statement in tree.body for name in _names_bound_by_import(statement, nested=True)}
    unused = {name for name, count in displaced.items() if uses[name] <= count and name in removable}

    chunks = _chunks(tree.body)
    starts = [chunk.first for chunk in chunks]
    for edit in edits:  # an edit's line is inside a top-level statement, so inside the last chunk starting above it
        chunks[bisect.bisect_right(starts, edit.span.line) - 1].edits.append(edit)
    for chunk in chunks:
        chunk.drop = unused & {name for s in chunk.statements for name in _names_bound_by_import(s, nested=True)}
        chunk.extend = [(name, local[name]) for name in missing] if holder in chunk.statements else []
    # What changes, as (first line, order, last line, new text): line numbers of the file as it is; applied
    # bottom up, so those above stay valid, and a chunk before what is inserted above its first line.
    splices = [
        (chunk.first, 1, chunk.last, _rewrite_chunk("".join(lines[chunk.first - 1 : chunk.last]), chunk, runtime_module))
        for chunk in chunks if chunk.edits or chunk.drop or chunk.extend
    ]
    if missing and runtime_import is None:
        assert not isinstance(runtime, BlockEdit), f"not in the inline runtime: {', '.join(missing)}"
        position = runtime_position(tree, min(edit.span.line for edit in edits))
        imported = [(name, local[name]) for name in missing]
        splices.append((position + 1, 0, position, _import_text(runtime_module, imported, runtime.both_ways, newline_of(lines))))
    if isinstance(runtime, BlockEdit) and runtime.remove is not None:
        splices.append((runtime.remove[0] + 1, 1, runtime.remove[1], ""))
    if isinstance(runtime, BlockEdit) and runtime.lines:
        splices.append((runtime.insert + 1, 0, runtime.insert, "".join(runtime.lines)))
    for first, _, last, text in sorted(splices, key=lambda splice: splice[:2], reverse=True):
        _replace_lines(lines, first, last, text)
    return "".join(lines)


#: Why a file imports the runtime two ways, said where it does.
BOTH_WAYS_COMMENT = "# its own directory on sys.path: run by path, or by pytest's prepend and append modes"


def _import_text(module: str, names: list[tuple[str, str]], both_ways: bool, newline: str) -> str:
    imported = ", ".join(f"{name} as {bound}" for name, bound in names)
    if not both_ways:
        return f"from {module} import {imported}{newline}"
    return (
        f"try:{newline}    from .{module} import {imported}{newline}"
        f"except ImportError:  {BOTH_WAYS_COMMENT}{newline}    from {module} import {imported}{newline}"
    )


def _holding_statement(tree: ast.Module, runtime_import: Optional[ast.ImportFrom]) -> Optional[ast.stmt]:
    """The top-level statement that holds ``runtime_import``: itself, or the ``try`` of a two-way import."""
    if runtime_import is None:
        return None
    return next(s for s in tree.body if s is runtime_import or (isinstance(s, ast.Try) and runtime_import in s.body))


def private_name(name: str) -> str:
    """The name a fixed file binds a runtime name to: private (``WeakIdMap as _WeakIdMap``), so that a module
    without ``__all__`` does not export it (``from .mod import *`` in a package would otherwise replace the
    package's own ``weak_cache`` or ``WeakIdMap`` with ours)."""
    return f"_{name}"


def local_runtime_names(runtime_import: Optional[ast.ImportFrom]) -> dict[str, str]:
    """Runtime name -> the name it is bound to, for what an existing import of our runtime already binds
    (the user's own ``from flake8_weakglobals.runtime import WeakIdMap`` is used as it is)."""
    if runtime_import is None:
        return {}
    return {alias.name: alias.asname or alias.name for alias in runtime_import.names if alias.name != "*"}


def _named_locally(edit: Edit, local: dict[str, str]) -> Edit:
    """``edit`` writing the runtime name as the file binds it (``WeakIdMap.fromkeys`` -> ``_WeakIdMap.fromkeys``)."""
    head, dot, rest = edit.name.partition(".")
    if head not in local:
        return edit
    return dataclasses.replace(edit, name=local[head] + dot + rest)


def _chunks(statements: list[ast.stmt]) -> list[_Chunk]:
    """Line ranges of top-level statements, merged where statements share a line (``a = {}; b = {}``)."""
    chunks: list[_Chunk] = []
    for statement in statements:
        start, end = first_line(statement), statement.end_lineno or statement.lineno
        if chunks and start <= chunks[-1].last:
            chunks[-1].last = max(chunks[-1].last, end)
            chunks[-1].statements.append(statement)
        else:
            chunks.append(_Chunk(start, end, [statement]))
    return chunks


def _rewrite_chunk(text: str, chunk: _Chunk, runtime_module: str) -> str:
    try:
        new = _rewrite_parsed_chunk(text, chunk, runtime_module)
    except RecursionError:
        raise RewriteError(f"line {chunk.first}: the statement is nested too deeply for libcst to rewrite") from None
    except cst.ParserSyntaxError as error:
        raise RewriteError(f"line {chunk.first + error.raw_line - 1}: libcst cannot parse this statement: {error.message}") from None
    if new and text.endswith(_ENDINGS) and not new.endswith(_ENDINGS):  # libcst drops a final lone "\r"
        new += "\r\n" if text.endswith("\r\n") else text[-1]
    return new


def _rewrite_parsed_chunk(text: str, chunk: _Chunk, runtime_module: str) -> str:
    shift = chunk.first - 1
    chunk_lines = lines_of(text)
    wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
    applier = _ApplyEdits({_character_span(edit.span, shift, chunk_lines): edit for edit in chunk.edits})
    module = wrapper.visit(applier)
    if applier.pending:
        edit = next(iter(applier.pending.values()))
        raise RewriteError(f"line {edit.span.line}: cannot find the expression to rewrite ({edit.kind.value})")
    body = [statement for statement in (_without(s, chunk.drop) for s in module.body) if statement is not None]
    if chunk.extend:
        body = [_extended(statement, runtime_module, chunk.extend) for statement in body]
    return module.with_changes(body=body).code if body else ""


def _replace_lines(lines: list[str], first: int, last: int, text: str) -> None:
    """Put ``text`` in place of lines ``first``..``last`` (before line ``first`` when ``last`` is above it). A
    statement removed whole takes with it a blank line it would leave at the top of the file or doubled;
    comments around it are never touched."""
    lines[first - 1 : last] = lines_of(text)
    if text:
        return
    above_is_blank = first == 1 or not lines[first - 2].strip()
    while above_is_blank and first - 1 < len(lines) and not lines[first - 1].strip():
        del lines[first - 1]


def _character_span(span: Span, shift: int, lines: list[str]) -> tuple[int, int, int, int]:
    def column(line: int, byte_column: int) -> int:
        return len(lines[line - 1].encode("utf-8")[:byte_column].decode("utf-8", errors="ignore"))

    start, end = span.line - shift, span.end_line - shift
    return start, column(start, span.col), end, column(end, span.end_col)


def _dotted(name: str) -> cst.BaseExpression:
    return cst.parse_expression(name)


class _ApplyEdits(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, by_span: dict[tuple[int, int, int, int], Edit]) -> None:
        super().__init__()
        self.pending = dict(by_span)
        self._before_statement: list[int] = []  # edits pending when each enclosing statement line began
        self.last_runtime_name = ""

    def on_visit(self, node: cst.CSTNode) -> bool:
        """Descend only into nodes that contain an edit still to apply."""
        if isinstance(node, cst.SimpleStatementLine):
            self._before_statement.append(len(self.pending))
        position = self.get_metadata(PositionProvider, node, None)
        if position is None:
            return bool(self.pending)
        start, end = self._start(node, position.start), (position.end.line, position.end.column)
        return any(start <= key[:2] and key[2:] <= end for key in self.pending)

    def _start(self, node: cst.CSTNode, start: CodePosition) -> tuple[int, int]:
        """Where ``node`` starts, decorators included: libcst starts a ``def``, a ``class``, and a block
        that opens with one, at the keyword, below the decorators that an edit may rewrite."""
        first = node.body[0] if isinstance(node, cst.IndentedBlock) and node.body else node
        decorators = getattr(first, "decorators", ())
        if decorators:
            start = self.get_metadata(PositionProvider, decorators[0]).start
        return start.line, start.column

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> Union[cst.CSTNode, cst.RemovalSentinel]:
        if isinstance(updated, cst.SimpleStatementLine):
            return self._retyped(updated)
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
        if edit.kind is not EditKind.UNWRAP_ID:
            self.last_runtime_name = edit.name.partition(".")[0]
        return _apply(edit, updated)  # type: ignore[arg-type]

    def _retyped(self, updated: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
        """A ``# type: set`` comment on a rewritten statement names the runtime class, never a stale type."""
        edited = self._before_statement.pop() > len(self.pending)
        comment = updated.trailing_whitespace.comment
        if not edited or comment is None:
            return updated
        retyped = _TYPE_COMMENT.sub(lambda match: match.group(1) + self.last_runtime_name, comment.value, count=1)
        return updated.with_changes(trailing_whitespace=updated.trailing_whitespace.with_changes(comment=cst.Comment(retyped)))


def _apply(edit: Edit, node: cst.BaseExpression) -> cst.BaseExpression:
    if edit.kind is EditKind.WRAP:
        empty = isinstance(node, (cst.Dict, cst.List)) and not node.elements
        inner = node.with_changes(lpar=[], rpar=[])
        return cst.Call(_dotted(edit.name), [] if empty else [cst.Arg(inner)], lpar=node.lpar, rpar=node.rpar)
    if edit.kind is EditKind.RENAME_GENERIC:
        return _dotted(edit.name).with_changes(lpar=node.lpar, rpar=node.rpar)
    assert isinstance(node, cst.Call)
    if edit.kind is EditKind.UNWRAP_ID:
        value = node.args[0].value
        if isinstance(value, _ATOMS) or value.lpar:
            return value.with_changes(lpar=[*node.lpar, *value.lpar], rpar=[*value.rpar, *node.rpar])
        return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    if edit.kind is EditKind.RENAME_CALLEE:
        return node.with_changes(func=_dotted(edit.name))
    factory, *rest = node.args or [None]
    if factory is None:
        return node.with_changes(func=_dotted(edit.name), args=[])
    keyword = factory.with_changes(
        keyword=cst.Name("default_factory"),
        equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
    )
    # The arguments move (the factory last, as a keyword); commas, line breaks and comments stay in place.
    moved = [*rest, keyword]
    arguments = [
        place.with_changes(value=content.value, keyword=content.keyword, equal=content.equal)
        for place, content in zip(node.args, moved)
    ]
    return node.with_changes(func=_dotted(edit.name), args=arguments)


# --- imports ----------------------------------------------------------------------------------------------


def _name_uses(tree: ast.Module, names: set[str]) -> collections.Counter[str]:
    """How often each of ``names`` is used, imports aside: loaded, listed in a string (``__all__``), or
    inside a string annotation (``'weakref.WeakSet[Tensor]'``), which pyflakes reads as code too."""
    uses: collections.Counter[str] = collections.Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in names:
            uses[node.id] += 1
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and any(name in node.value for name in names):
            uses.update(name for name in _names_in_string(node.value) if name in names)
    return uses


def _names_in_string(text: str) -> list[str]:
    if text.isidentifier():
        return [text]
    try:
        expression = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        return []
    return [node.id for node in ast.walk(expression) if isinstance(node, ast.Name)]


def _names_bound_by_import(statement: ast.stmt, nested: bool = False) -> list[str]:
    """Names a top-level import binds; with ``nested``, also imports inside a top-level ``if`` (``if
    TYPE_CHECKING:``), which the fix may leave unused too."""
    if nested and isinstance(statement, ast.If):
        return [name for inner in (*statement.body, *statement.orelse) for name in _names_bound_by_import(inner, True)]
    if not isinstance(statement, (ast.Import, ast.ImportFrom)):
        return []
    return [alias.asname or alias.name.partition(".")[0] for alias in statement.names if alias.name != "*"]


def _imported_names(tree: ast.Module) -> set[str]:
    return {name for statement in tree.body for name in _names_bound_by_import(statement)}


def _bound_name(alias: cst.ImportAlias) -> str:
    if alias.asname is not None:
        return alias.asname.name.value  # type: ignore[union-attr]
    expression: cst.BaseExpression = alias.name
    while isinstance(expression, cst.Attribute):
        expression = expression.value
    return expression.value if isinstance(expression, cst.Name) else ""


def _without(statement: cst.BaseStatement, unused: set[str]) -> Optional[cst.BaseStatement]:
    """A statement line without the imports of ``unused`` names; None when nothing is left of it. Inside a
    top-level ``if`` (``if TYPE_CHECKING:``) a block left empty gets a ``pass``."""
    if unused and isinstance(statement, cst.If):
        return _if_without(statement, unused)
    if not unused or not isinstance(statement, cst.SimpleStatementLine):
        return statement
    kept = []
    for part in statement.body:
        if isinstance(part, (cst.Import, cst.ImportFrom)) and not isinstance(part.names, cst.ImportStar):
            names = [alias for alias in part.names if _bound_name(alias) not in unused]
            if not names:
                continue
            if len(names) < len(part.names):
                names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                part = part.with_changes(names=names)
        kept.append(part)
    if not kept:
        return None
    kept[-1] = kept[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
    return statement.with_changes(body=kept)


def _if_without(statement: cst.If, unused: set[str]) -> cst.If:
    orelse = statement.orelse
    if isinstance(orelse, cst.If):
        orelse = _if_without(orelse, unused)
    elif isinstance(orelse, cst.Else):
        orelse = orelse.with_changes(body=_block_without(orelse.body, unused))
    return statement.with_changes(body=_block_without(statement.body, unused), orelse=orelse)


def _block_without(block: cst.BaseSuite, unused: set[str]) -> cst.BaseSuite:
    if not isinstance(block, cst.IndentedBlock):
        return block
    kept = [inner for inner in (_without(statement, unused) for statement in block.body) if inner is not None]
    return block.with_changes(body=kept or [cst.SimpleStatementLine([cst.Pass()])])


def _extended(statement: cst.BaseStatement, module: str, names: list[tuple[str, str]]) -> cst.BaseStatement:
    """The ``from <runtime> import ...`` line with ``names`` (each as its local name) added; in a two-way
    import, both of its lines."""
    if isinstance(statement, cst.Try) and isinstance(statement.body, cst.IndentedBlock):
        handlers = [
            handler.with_changes(body=handler.body.with_changes(body=[_extended(inner, VENDORED_MODULE, names) for inner in handler.body.body]))
            for handler in statement.handlers
        ]
        body = statement.body.with_changes(body=[_extended(s, VENDORED_MODULE, names) for s in statement.body.body])
        return statement.with_changes(body=body, handlers=handlers)
    if not isinstance(statement, cst.SimpleStatementLine):
        return statement
    parts = []
    for part in statement.body:
        if isinstance(part, cst.ImportFrom) and not isinstance(part.names, cst.ImportStar) and part.module is not None:
            if cst.Module([]).code_for_node(part.module) == module:
                added = (cst.ImportAlias(cst.Name(name), asname=None if name == bound else cst.AsName(cst.Name(bound)))
                         for name, bound in names)
                aliases = [*part.names, *added]
                part = part.with_changes(names=[alias.with_changes(comma=cst.MaybeSentinel.DEFAULT) for alias in aliases])
        parts.append(part)
    return statement.with_changes(body=parts)
