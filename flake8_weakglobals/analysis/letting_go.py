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
did, even in a hook that runs while its own module is kept by its caller. This module finds the
releases and those reads in the container's own module, and whether a read can run after a release.
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
#: The releasing methods that take no argument (``pop()`` the last, ``clear()``, ``to_empty(device=...)``).
_WITHOUT_ARGUMENTS = frozenset({"pop", "popitem", "clear", "to_empty"})
#: Attributes whose store changes a tensor or a module in place, keeping the object itself.
_IN_PLACE_ATTRIBUTES = frozenset({"data", "grad", "requires_grad", "training"})
#: A list's reads by position: after a gap closes, each position names another object.
_POSITION_METHODS = frozenset({"pop", "index", "__getitem__"})
_NUMBERING_CALLS = frozenset({"enumerate", "zip"})
_DICT_TYPES = frozenset({"dict", "defaultdict", "OrderedDict", "WeakIdMap", "WeakKeyDictionary"})
#: A keyed container's methods that name the entry they read or write: they cannot see a gone entry.
_KEYED_METHODS = frozenset({
    "get", "setdefault", "add", "discard", "remove", "clear", "update",
    "__getitem__", "__setitem__", "__delitem__", "__contains__",
})


@dataclass(frozen=True)
class Release:
    """A statement that makes an owner let go: ``del model`` or a part of it replaced."""

    line: int
    how: str
    scope: ast.AST  # the function, or the module, that runs it
    in_loop: Optional[ast.AST] = None  # the outermost loop around it in that scope
    path: tuple[Optional[str], ...] = ()  # the part let go, by attributes from the owner (None: a part no name says)

    def reaches(self, held: tuple[Optional[str], ...]) -> bool:
        """Whether letting go of this part lets go of the part ``held`` (a path of the same kind): it is that
        part or one it is in. Replacing ``self.hook`` keeps ``self.module``; replacing ``model.layers[0]``
        may be any layer."""
        for mine, theirs in zip(self.path, held):
            if mine is None or theirs is None:
                return True
            if mine != theirs:
                return False
        return len(self.path) <= len(held)


@dataclass(frozen=True)
class Read:
    """A use of the container that hands back what it holds."""

    line: int
    how: str
    scope: ast.AST


def releases_of(scopes: Scopes, scope: ast.AST, name: str, parts: bool, _asked: frozenset = frozenset()) -> list[Release]:
    """Where ``name``, bound in ``scope`` (the module, or an entry point), lets go: deleted, or, when the
    container holds ``parts`` of it (``model.block``, its modules), a part stored over or taken out, here
    or by a function of this module that it, or a part of it, is handed to (``fold(model[1])``)."""
    found = _handed_to_a_releasing_function(scopes, scope, name, _asked | {(scope, name)}) if parts else []
    keyed = _bound_to_a_dict(scope, name)
    for node in ast.walk(scope):
        if isinstance(node, ast.Delete):
            for target in node.targets:
                root = _root(target)
                if root is not None and root.id == name and _same_binding(scopes, root, scope) and (parts or target is root):
                    found.append(_release(scopes, node, f"`{text(node)}`", part_path(target)))
        elif not parts:
            continue
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None and not _by_value(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                root = _root(target)
                if (
                    root is not None and target is not root and root.id == name and _same_binding(scopes, root, scope)
                    and not (isinstance(target, ast.Attribute) and target.attr in _IN_PLACE_ATTRIBUTES)
                    and not (keyed and isinstance(target, ast.Subscript) and target.value is root)
                ):
                    found.append(_release(scopes, node, f"`{text(node)[:60]}` puts another object in a part of `{name}`", part_path(target)))
        elif isinstance(node, ast.Call):
            released = _releasing_call(node)
            root = _root(released) if released is not None else None
            if root is not None and root.id == name and _same_binding(scopes, root, scope):
                path = (*part_path(released), None)  # type: ignore[arg-type]
                found.append(_release(scopes, node, f"`{text(node)[:60]}` takes a part out of `{name}` or replaces it", path))
    return found


def _handed_to_a_releasing_function(scopes: Scopes, scope: ast.AST, name: str, asked: frozenset) -> list[Release]:
    """The calls in ``scope`` that hand ``name`` or a part of it to a module-level function of this module
    whose parameter lets go of a part (``def fold(stage): stage._modules["1"] = nn.Identity()``)."""
    functions = {node.name: node for node in scopes.module.body if isinstance(node, FUNCTIONS)}
    found = []
    for call in ast.walk(scope):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in functions):
            continue
        callee = functions[call.func.id]
        for argument, parameter in _arguments_to_parameters(call, callee):
            root = _root(argument)
            if root is None or root.id != name or not _same_binding(scopes, root, scope) or (callee, parameter) in asked:
                continue
            for inner in releases_of(scopes, callee, parameter, True, asked):
                how = f"`{text(call)[:60]}` lets go of a part of `{name}` (line {inner.line}: {inner.how})"
                found.append(_release(scopes, call, how, part_path(argument) + inner.path))
    return found


def _arguments_to_parameters(call: ast.Call, function: ast.AST) -> Iterator[tuple[ast.expr, str]]:
    """Each argument of ``call`` with the name of the parameter of ``function`` it binds."""
    positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]  # type: ignore[attr-defined]
    for argument, parameter in zip(call.args, positional):
        if not isinstance(argument, ast.Starred):
            yield argument, parameter
    for keyword in call.keywords:
        if keyword.arg is not None:
            yield keyword.value, keyword.arg


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


def walking_reads(scopes: Scopes, name: str) -> list[Read]:
    """The reads of the module global ``name``, a container keyed by objects, that see what every entry
    holds (``X.values()``, ``for k in X``, ``X`` handed to a call), not one entry named by its key, nor
    how many there are."""
    found = []
    for node in ast.walk(scopes.module):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) and _same_binding(scopes, node, scopes.module):
            if not (_by_key(scopes, node) or _counted(scopes, node)):
                found.append(Read(node.lineno, _statement_of(scopes, node), _scope_of(scopes, node)))
    return found


def read_after(scopes: Scopes, release: Release, reads: list[Read], fill: ast.AST) -> Optional[Read]:
    """The first read that can run after ``release``: later in the same function (or anywhere in a loop
    around the release), or in another function, unless every call of that function in this module runs
    before the release in the release's own function. A release that runs only before the ``fill`` lets
    go of objects before they are put in the container: it has none of them."""
    if _scope_of(scopes, fill) is release.scope and release.line < fill.lineno and release.in_loop is None:  # type: ignore[attr-defined]
        return None
    for read in reads:
        if read.scope is release.scope:
            if read.line > release.line or (release.in_loop is not None and _within(scopes, read.line, release.in_loop)):
                return read
        elif not _only_called_before(scopes, read.scope, release):
            return read
    return None


def _bound_to_a_dict(scope: ast.AST, name: str) -> bool:
    """Whether ``name`` is bound in ``scope`` to a dict display or a dict: a store under a key
    (``X[k] = v``) replaces a value and keeps every key, what a map keyed by objects owns."""
    body = getattr(scope, "body", [])
    for statement in body if isinstance(body, list) else []:  # a lambda's body is one expression
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                value = statement.value
                callee = value.func if isinstance(value, ast.Call) else None
                return isinstance(value, (ast.Dict, ast.DictComp)) or (
                    isinstance(callee, (ast.Name, ast.Attribute)) and text(callee).split(".")[-1] in _DICT_TYPES
                )
    return False


def part_path(expr: ast.expr) -> tuple[Optional[str], ...]:
    """The attributes from the root name to ``expr``: ``model.block.attn`` → ``("block", "attn")``; an item
    (``layers[0]``) is a part no name says (None)."""
    path: list[Optional[str]] = []
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        path.append(expr.attr if isinstance(expr, ast.Attribute) else None)
        expr = expr.value
    return tuple(reversed(path))


def _release(scopes: Scopes, node: ast.AST, how: str, path: tuple[Optional[str], ...] = ()) -> Release:
    scope = _scope_of(scopes, node)
    loop = None
    for ancestor in _ancestors(scopes, node):
        if ancestor is scope:
            break
        if isinstance(ancestor, (ast.For, ast.AsyncFor, ast.While)):
            loop = ancestor
    return Release(node.lineno, how, scope, loop, path)  # type: ignore[attr-defined]


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


def _by_key(scopes: Scopes, node: ast.Name) -> bool:
    """Whether a reference to a keyed container reads or writes one entry by its key: ``X[k]``,
    ``X.get(k)``, ``X.pop(k)``, ``k in X``."""
    parent = scopes.parent(node)
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return True
    if isinstance(parent, ast.Attribute) and parent.value is node:
        call = scopes.parent(parent)
        return parent.attr in _KEYED_METHODS or (parent.attr == "pop" and isinstance(call, ast.Call) and bool(call.args))
    return isinstance(parent, ast.Compare) and node in parent.comparators and all(
        isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops
    )


def _counted(scopes: Scopes, node: ast.Name) -> bool:
    """Whether a reference to a container reads only how many entries it has: ``len(X)``, ``bool(X)``,
    a truth test (``if X:``, ``not X``)."""
    parent = scopes.parent(node)
    if isinstance(parent, ast.Call) and parent.args == [node] and isinstance(parent.func, ast.Name):
        return parent.func.id in ("len", "bool")
    if isinstance(parent, ast.UnaryOp):
        return isinstance(parent.op, ast.Not)
    if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)):
        return parent.test is node
    return isinstance(parent, ast.BoolOp) and scopes.parent(parent) is not None and _tested(scopes, parent)


def _tested(scopes: Scopes, node: ast.expr) -> bool:
    """Whether a boolean operation's value is only tested (``if X and Y:``), not used."""
    parent = scopes.parent(node)
    if isinstance(parent, ast.BoolOp):
        return _tested(scopes, parent)
    return isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)) and parent.test is node or isinstance(parent, ast.UnaryOp)


def _statement_of(scopes: Scopes, node: ast.AST) -> str:
    statement = next((a for a in _ancestors(scopes, node) if isinstance(a, ast.stmt)), node)
    return f"`{text(statement)[:60]}`"


def _releasing_call(call: ast.Call) -> Optional[ast.expr]:
    """The part a call takes objects out of: ``model.layers.pop(0)`` → ``model.layers``,
    ``setattr(model, name, new)`` → ``model``."""
    function = call.func
    if isinstance(function, ast.Name) and function.id in ("setattr", "delattr") and call.args:
        return call.args[0] if not (function.id == "setattr" and len(call.args) == 3 and _by_value(call.args[2])) else None
    if isinstance(function, ast.Attribute) and function.attr in _RELEASING_METHODS and (call.args or function.attr in _WITHOUT_ARGUMENTS):
        return function.value  # ``handle.remove()`` takes no argument: it is no list's ``remove(x)``
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
