"""Where an owner that the proof shows at a fill lets go later, and whether the container is read after.

The owner proof (``owners.py``) names what keeps each object at the fill: a module global, or a local of
the program's entry point. An owner can let go while the container is still read: ``del model`` before a
report, a layer replaced in its model (``model.block = Block()``, ``model.layers[0] = ...``,
``setattr(model, name, ...)``, ``model.experts.pop("a")``).

For a container keyed by the objects (a ``WeakIdMap``, a ``WeakIdSet``), the entries of objects nobody
else keeps are gone after that. A lookup cannot tell: it asks for an object the caller still has. A walk
can (``X.items()``, ``for m in X``, ``X`` handed on): it reads the entries of objects the container
alone keeps, a rollback that puts the old layers back, a total over every model seen, so the container is
their owner, and a weak one would lose them. A count (``len(X)``, ``if X:``) sees that entries are gone
and nothing of what they held: that is the contract's one exception, "entries whose keys died". (A value map's lookup by name can miss then, the
risk ``--unsafe-fixes`` is asked for.) A list sees more than that: a weak list closes up its gaps, so
after a release ``LAYERS[2]``, ``LAYERS.pop()`` and ``LAYERS.index(m)`` name other objects than the list
did, even in a hook that runs while its own module is kept by its caller. This module finds those
reads in the container's own module (and classifies another module's), and whether a read can run after a
release (``release_routes.py`` finds the releases).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, Collection, Optional

from ..syntax.scopes import FUNCTIONS, Scopes, walk
from .evidence import text
from .release_routes import Release, ancestors, definitions, same_binding, scope_of


Parent = Callable[[ast.AST], Optional[ast.AST]]  # a node's parent: ``Scopes.parent``, or a References' ``parents.get``


#: A list's reads by position: after a gap closes, each position names another object.
_POSITION_METHODS = frozenset({"pop", "index", "__getitem__"})


_NUMBERING_CALLS = frozenset({"enumerate", "zip"})


#: A keyed container's methods that name the entry they read or write: they cannot see a gone entry.
_KEYED_METHODS = frozenset({
    "get", "setdefault", "add", "discard", "remove", "clear", "update",
    "__getitem__", "__setitem__", "__delitem__", "__contains__",
})


@dataclass(frozen=True)
class Read:
    """A use of the container that hands back what it holds."""

    line: int
    how: str
    scope: ast.AST


def positional_reads(scopes: Scopes, name: str, hooks: Collection[ast.AST]) -> list[Read]:
    """The reads by position of the module global ``name``, a list (``X[2]``, ``X.pop()``,
    ``X.index(m)``), but those in ``hooks``."""
    found = []
    for node in walk(scopes.module):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) and same_binding(scopes, node, scopes.module):
            scope = scope_of(scopes, node)
            if _by_position(scopes.parent, node) and scope not in hooks:
                found.append(Read(node.lineno, _statement_of(scopes, node), scope))
    return found


def walking_reads(scopes: Scopes, name: str, listed: bool = False) -> list[Read]:
    """The reads of the module global ``name`` that see what every entry holds (``X.values()``, ``for k
    in X``, ``X`` handed to a call), not one entry named by its key, nor how many there are (``_walked``)."""
    found = []
    for node in walk(scopes.module):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) and same_binding(scopes, node, scopes.module):
            if _walked(scopes.parent, node, listed):
                found.append(Read(node.lineno, _statement_of(scopes, node), scope_of(scopes, node)))
    return found


def read_after(scopes: Scopes, release: Release, reads: list[Read], fill: ast.AST) -> Optional[Read]:
    """The first read that can run after ``release``: later in the same function (or anywhere in a loop
    around the release), or in another function, unless every call of that function in this module runs
    before the release in the release's own function. A release that runs only before the ``fill`` lets
    go of objects before they are put in the container: it has none of them."""
    if scope_of(scopes, fill) is release.scope and release.line < fill.lineno and release.in_loop is None and _runs_once(scopes, release.scope):  # type: ignore[attr-defined]
        return None
    for read in reads:
        if read.scope is release.scope:
            if read.line > release.line or (release.in_loop is not None and _within(scopes, read.line, release.in_loop)):
                return read
        elif not _only_called_before(scopes, read.scope, release) and not _before_inside(scopes, read, release):
            return read
    return None


def _before_inside(scopes: Scopes, read: Read, release: Release) -> bool:
    """Whether ``read`` is in the function that a releasing call hands the owner to, before that function's
    own release and out of any loop around it (``drop(model)``: a look at the container, then ``del
    model[2]``), and that function runs only at that call."""
    inside = release.inside
    if inside is None or read.scope is not inside.scope or read.line >= inside.line or inside.in_loop is not None:
        return False
    calls = [
        call for name in definitions(scopes.module).names.get(getattr(inside.scope, "name", ""), [])
        if isinstance(call := scopes.parent(name), ast.Call) and call.func is name
    ]
    return len(calls) == 1 and calls[0].lineno == release.line and release.in_loop is None


def _runs_once(scopes: Scopes, scope: ast.AST, depth: int = 0) -> bool:
    """Whether ``scope`` runs once: the module, or a function named once in it, by one call out of any loop,
    in a function that runs once (``snapshot()`` called in a loop lets go, on its next run, of what its
    last run put in)."""
    if isinstance(scope, ast.Module):
        return True
    name = getattr(scope, "name", None)
    named = definitions(scopes.module).names.get(name, []) if isinstance(name, str) else []
    if len(named) != 1 or not isinstance(scopes.parent(named[0]), ast.Call) or depth > 8:
        return name == "main" and not named
    for ancestor in ancestors(scopes, named[0]):
        if isinstance(ancestor, (ast.For, ast.AsyncFor, ast.While)):
            return False
        if isinstance(ancestor, FUNCTIONS):
            return _runs_once(scopes, ancestor, depth + 1)
    return True


def _only_called_before(scopes: Scopes, function: ast.AST, release: Release) -> bool:
    """Whether every call of ``function`` in the module is in the release's own scope, before it and out
    of any loop around it (``report()`` before ``del model``). A function never called here may run at
    any time."""
    if not isinstance(function, FUNCTIONS):
        return False
    calls = [
        call for name in definitions(scopes.module).names.get(function.name, [])
        if isinstance(call := scopes.parent(name), ast.Call) and call.func is name
    ]
    return bool(calls) and all(
        scope_of(scopes, call) is release.scope and call.lineno < release.line
        and not (release.in_loop is not None and _within(scopes, call.lineno, release.in_loop))
        for call in calls
    )


def sees_what_goes(parent: Parent, node: ast.expr, listed: bool) -> bool:
    """Whether a reference to a container (here, or in another module: ``registry.LAYERS``) reads it by a
    route that sees what an owner let go: by a walk, or a ``listed`` one by position too."""
    return (listed and _by_position(parent, node)) or _walked(parent, node, listed)


def _walked(parent: Parent, node: ast.expr, listed: bool) -> bool:
    """Whether a reference reads what every entry holds (``X.values()``, ``for m in X``, ``X`` handed to a
    call): not one entry it names (a key; a list's ``append``, ``remove``, ``in``), not a count, not a
    list's position (``_by_position``)."""
    if _counted(parent, node):
        return False
    if not listed:
        return not _by_key(parent, node)
    return not (_by_position(parent, node) or _names_one_in_a_list(parent, node))


#: A list's methods that write, or name the one element they read: they hand back nothing it holds.
_LIST_NAMING_METHODS = frozenset({"append", "extend", "insert", "remove", "clear", "count", "sort", "reverse"})


def _names_one_in_a_list(parent: Parent, node: ast.expr) -> bool:
    """``X.append(m)``, ``X.remove(m)``, ``m in X``, ``X[i] = m``: a list's use that names its element."""
    above = parent(node)
    if isinstance(above, ast.Attribute) and above.value is node:
        return above.attr in _LIST_NAMING_METHODS
    if isinstance(above, ast.Subscript) and above.value is node:
        return not isinstance(above.ctx, ast.Load)
    return isinstance(above, ast.Compare) and node in above.comparators and all(isinstance(op, (ast.In, ast.NotIn)) for op in above.ops)


def _by_position(parent: Parent, node: ast.expr) -> bool:
    """Whether a reference to a list reads an item by its position: ``X[i]``, ``X.pop()``,
    ``X.index(m)``, or numbered or paired by it (``enumerate(X)``, ``zip(names, X)``)."""
    above = parent(node)
    if isinstance(above, ast.Subscript) and above.value is node and isinstance(above.ctx, ast.Load):
        return True
    if isinstance(above, ast.Attribute) and above.value is node and above.attr in _POSITION_METHODS:
        return True
    return isinstance(above, ast.Call) and node in above.args and isinstance(above.func, ast.Name) and above.func.id in _NUMBERING_CALLS


def _by_key(parent: Parent, node: ast.expr) -> bool:
    """Whether a reference to a keyed container reads or writes one entry by its key: ``X[k]``,
    ``X.get(k)``, ``X.pop(k)``, ``k in X``."""
    above = parent(node)
    if isinstance(above, ast.Subscript) and above.value is node:
        return True
    if isinstance(above, ast.Attribute) and above.value is node:
        call = parent(above)
        return above.attr in _KEYED_METHODS or (above.attr == "pop" and isinstance(call, ast.Call) and bool(call.args))
    return isinstance(above, ast.Compare) and node in above.comparators and all(
        isinstance(op, (ast.In, ast.NotIn)) for op in above.ops
    )


def _counted(parent: Parent, node: ast.expr) -> bool:
    """Whether a reference to a container reads only how many entries it has: ``len(X)``, ``bool(X)``,
    a truth test (``if X:``, ``not X``)."""
    above = parent(node)
    if isinstance(above, ast.Call) and above.args == [node] and isinstance(above.func, ast.Name):
        return above.func.id in ("len", "bool")
    if isinstance(above, ast.UnaryOp):
        return isinstance(above.op, ast.Not)
    if isinstance(above, (ast.If, ast.While, ast.IfExp, ast.Assert)):
        return above.test is node
    return isinstance(above, ast.BoolOp) and parent(above) is not None and _tested(parent, above)


def _tested(parent: Parent, node: ast.expr) -> bool:
    """Whether a boolean operation's value is only tested (``if X and Y:``), not used."""
    above = parent(node)
    if isinstance(above, ast.BoolOp):
        return _tested(parent, above)
    return isinstance(above, (ast.If, ast.While, ast.IfExp, ast.Assert)) and above.test is node or isinstance(above, ast.UnaryOp)


def _statement_of(scopes: Scopes, node: ast.AST) -> str:
    statement = next((a for a in ancestors(scopes, node) if isinstance(a, ast.stmt)), node)
    return f"`{text(statement)[:60]}`"


def _within(scopes: Scopes, line: int, loop: ast.AST) -> bool:
    return loop.lineno <= line <= (loop.end_lineno or loop.lineno)  # type: ignore[attr-defined]
