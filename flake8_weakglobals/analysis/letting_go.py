"""Where an owner that the proof shows at a fill lets go later, and whether the container is read after.

The owner proof (``owners.py``) names what keeps each object at the fill: a module global, or a local of
the program's entry point. An owner can let go while the container is still read: ``del model`` before a
report, a layer replaced in its model (``model.block = Block()``, ``model.layers[0] = ...``,
``setattr(model, name, ...)``, ``model.experts.pop("a")``).

For a container keyed by the objects (a ``WeakIdMap``, a ``WeakIdSet``), the entries of objects nobody
else keeps are gone after that, which is the fix's one intended difference: no lookup can ask for an
object the caller no longer has, and a walk sees the entries of the objects still kept. (A value map's
lookup by name can miss then, the risk ``--unsafe-fixes`` is asked for.) A list read by position sees
more than that: a weak list closes up its gaps, so after a release ``LAYERS[2]``, ``LAYERS.pop()`` and
``LAYERS.index(m)`` name other objects than the list did. This module finds the releases and those
reads in the container's own module, and whether a read can run after a release. A read in a hook runs
while the module it is called for is kept by its caller.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Collection, Iterator, Optional

from ..syntax.scopes import FUNCTIONS, Scopes
from .evidence import text

#: Methods of a part that take objects out of it or put others in their place.
_RELEASING_METHODS = frozenset({
    "pop", "popitem", "clear", "remove", "__delitem__", "__setitem__", "update",
    "add_module", "register_module", "register_parameter", "register_buffer", "to_empty",
})
#: Attributes whose store changes a tensor or a module in place, keeping the object itself.
_IN_PLACE_ATTRIBUTES = frozenset({"data", "grad", "requires_grad", "training"})
#: A list's reads by position: after a gap closes, each position names another object.
_POSITION_METHODS = frozenset({"pop", "index", "__getitem__"})
_NUMBERING_CALLS = frozenset({"enumerate", "zip"})


@dataclass(frozen=True)
class Release:
    """A statement that makes an owner let go: ``del model`` or a part of it replaced."""

    line: int
    how: str
    scope: ast.AST  # the function, or the module, that runs it
    in_loop: Optional[ast.AST] = None  # the outermost loop around it in that scope


@dataclass(frozen=True)
class Read:
    """A use of the container that hands back what it holds."""

    line: int
    how: str
    scope: ast.AST


def releases_of(scopes: Scopes, scope: ast.AST, name: str, parts: bool) -> list[Release]:
    """Where ``name``, bound in ``scope`` (the module, or an entry point), lets go: deleted, or, when the
    container holds ``parts`` of it (``model.block``, its modules), a part stored over or taken out."""
    found = []
    for node in ast.walk(scope):
        if isinstance(node, ast.Delete):
            for target in node.targets:
                root = _root(target)
                if root is not None and root.id == name and _same_binding(scopes, root, scope) and (parts or target is root):
                    found.append(_release(scopes, node, f"`{text(node)}`"))
        elif not parts:
            continue
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None and not _by_value(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                root = _root(target)
                if (
                    root is not None and target is not root and root.id == name and _same_binding(scopes, root, scope)
                    and not (isinstance(target, ast.Attribute) and target.attr in _IN_PLACE_ATTRIBUTES)
                ):
                    found.append(_release(scopes, node, f"`{text(node)[:60]}` puts another object in a part of `{name}`"))
        elif isinstance(node, ast.Call):
            released = _releasing_call(node)
            root = _root(released) if released is not None else None
            if root is not None and root.id == name and _same_binding(scopes, root, scope):
                found.append(_release(scopes, node, f"`{text(node)[:60]}` takes a part out of `{name}` or replaces it"))
    return found


def positional_reads(scopes: Scopes, name: str, hooks: Collection[ast.AST]) -> list[Read]:
    """The reads by position of the module global ``name``, a list (``X[2]``, ``X.pop()``,
    ``X.index(m)``), but those in ``hooks``."""
    found = []
    for node in ast.walk(scopes.module):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) and _same_binding(scopes, node, scopes.module):
            how = _by_position(scopes, node)
            scope = _scope_of(scopes, node)
            if how is not None and scope not in hooks:
                found.append(Read(node.lineno, how, scope))
    return found


def read_after(scopes: Scopes, release: Release, reads: list[Read]) -> Optional[Read]:
    """The first read that can run after ``release``: later in the same function (or anywhere in a loop
    around the release), or in another function, unless every call of that function in this module runs
    before the release in the release's own function."""
    for read in reads:
        if read.scope is release.scope:
            if read.line > release.line or (release.in_loop is not None and _within(scopes, read.line, release.in_loop)):
                return read
        elif not _only_called_before(scopes, read.scope, release):
            return read
    return None


def _release(scopes: Scopes, node: ast.AST, how: str) -> Release:
    scope = _scope_of(scopes, node)
    loop = None
    for ancestor in _ancestors(scopes, node):
        if ancestor is scope:
            break
        if isinstance(ancestor, (ast.For, ast.AsyncFor, ast.While)):
            loop = ancestor
    return Release(node.lineno, how, scope, loop)  # type: ignore[attr-defined]


def _only_called_before(scopes: Scopes, function: ast.AST, release: Release) -> bool:
    """Whether every call of ``function`` in the module is in the release's own scope, before it and out
    of any loop around it (``report()`` before ``del model``). A function never called here may run at
    any time."""
    if not isinstance(function, FUNCTIONS):
        return False
    calls = [
        node for node in ast.walk(scopes.module)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == function.name
    ]
    return bool(calls) and all(
        _scope_of(scopes, call) is release.scope and call.lineno < release.line
        and not (release.in_loop is not None and _within(scopes, call.lineno, release.in_loop))
        for call in calls
    )


def _by_position(scopes: Scopes, node: ast.Name) -> Optional[str]:
    """How a reference to a list reads an item by its position, if it does: ``X[i]``, ``X.pop()``,
    ``X.index(m)``, or numbered or paired by it (``enumerate(X)``, ``zip(names, X)``)."""
    parent = scopes.parent(node)
    if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.ctx, ast.Load):
        return _statement_of(scopes, node)
    if isinstance(parent, ast.Attribute) and parent.value is node and parent.attr in _POSITION_METHODS:
        return _statement_of(scopes, node)
    if isinstance(parent, ast.Call) and node in parent.args and isinstance(parent.func, ast.Name) and parent.func.id in _NUMBERING_CALLS:
        return _statement_of(scopes, node)
    return None


def _statement_of(scopes: Scopes, node: ast.AST) -> str:
    statement = next((a for a in _ancestors(scopes, node) if isinstance(a, ast.stmt)), node)
    return f"`{text(statement)[:60]}`"


def _releasing_call(call: ast.Call) -> Optional[ast.expr]:
    """The part a call takes objects out of: ``model.layers.pop(0)`` → ``model.layers``,
    ``setattr(model, name, new)`` → ``model``."""
    function = call.func
    if isinstance(function, ast.Name) and function.id in ("setattr", "delattr") and call.args:
        return call.args[0] if not (function.id == "setattr" and len(call.args) == 3 and _by_value(call.args[2])) else None
    if isinstance(function, ast.Attribute) and function.attr in _RELEASING_METHODS:
        return function.value
    return None


def _root(expr: ast.expr) -> Optional[ast.Name]:
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return expr if isinstance(expr, ast.Name) else None


def _same_binding(scopes: Scopes, name: ast.Name, scope: ast.AST) -> bool:
    resolved = scopes.resolve(name.id, name)
    return resolved is not None and resolved[0] is scope


def _scope_of(scopes: Scopes, node: ast.AST) -> ast.AST:
    """The function or the module whose run executes ``node`` (a comprehension runs in its function)."""
    return next((scope for scope in scopes.chain(node) if isinstance(scope, (*FUNCTIONS, ast.Module))), scopes.module)


def _ancestors(scopes: Scopes, node: ast.AST) -> Iterator[ast.AST]:
    current = scopes.parent(node)
    while current is not None:
        yield current
        current = scopes.parent(current)


def _within(scopes: Scopes, line: int, loop: ast.AST) -> bool:
    return loop.lineno <= line <= (loop.end_lineno or loop.lineno)  # type: ignore[attr-defined]


def _by_value(value: ast.expr) -> bool:
    """A constant but ``None``, or a display of them: stored by value, no object replaced by another
    (``model.vision = None`` takes the module out)."""
    if isinstance(value, (ast.Tuple, ast.List)):
        return all(_by_value(element) for element in value.elts)
    return isinstance(value, ast.Constant) and value.value is not None
