"""Walks of a container that can see it change size: inside a ``try`` that catches the error, or suspended
at a ``yield`` while the caller goes on.

``for m in FROZEN: ... FROZEN.add(child)`` raises ``RuntimeError: Set changed size during iteration`` at
the next step, and code that catches it (to restart a pass, or to report an aborted clean-up) relies on
that. A generator that walks a map and yields as it goes lets its caller fill the map between two steps,
and the dict raises at the next one. The weak replacements walk a snapshot and never raise
(``runtime/maps.py`` says why), so there the walk goes on and the program does something else. The proof
cannot tell whether the loop's body, or the generator's caller, changes the container (through any
function it calls), so such a walk refuses the fix, here and in other modules (``uses.py``,
``fixes/outside.py``).
"""
from __future__ import annotations

import ast
from typing import Callable, Optional

#: What a handler must catch to see the error: the error itself, or anything broader.
_CATCHING = frozenset({"RuntimeError", "Exception", "BaseException"})
_VIEWS = frozenset({"keys", "values", "items"})
#: Builtins that walk a generator handed to them to its end, right away.
_CONSUMING = frozenset("list tuple set frozenset dict sorted sum any all min max next".split())
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)


def walk_that_sees_a_change(parent: Callable[[ast.AST], Optional[ast.AST]], node: ast.expr, sequence: bool) -> Optional[str]:
    """Why the walk of ``node`` (a reference to the container, walked by a ``for`` loop over it, or its
    ``keys()``, ``values()``, ``items()``) relies on the error a change of size raises, or None. A list's
    walk never raised, and the runtime's list walks live as a list does: for a ``sequence`` only a ``try``
    around the walk counts."""
    loop = _walking_loop(parent, node)
    if loop is None:
        return None
    if isinstance(loop, ast.GeneratorExp):
        if sequence or _consumed_at_once(parent, loop):
            return None
        return (
            f"it is walked by a generator expression kept for later (line {loop.lineno}), so the container may change "
            "between two steps, where a dict or set raises and the runtime's snapshot walk goes on"
        )
    caught = _caught(parent, loop)
    if caught is not None:
        return f"it is walked in a `try` (line {caught}) that catches the error a dict or set raises when it changes size meanwhile; the runtime walks a snapshot and never raises"
    if sequence:
        return None
    suspended = next((found.lineno for statement in loop.body for found in _yields(statement)), None)
    if suspended is not None:
        return (
            f"it is walked by a generator that yields as it goes (line {suspended}), so its caller may change it "
            "between two steps, where a dict or set raises and the runtime's snapshot walk goes on"
        )
    return None


def _walking_loop(
    parent: Callable[[ast.AST], Optional[ast.AST]], node: ast.expr
) -> Optional[ast.For | ast.AsyncFor | ast.GeneratorExp]:
    """The ``for`` loop, or the generator expression, that walks ``node`` or one of its views."""
    iterated, above = node, parent(node)
    if isinstance(above, ast.Attribute) and above.value is node and above.attr in _VIEWS:
        call = parent(above)
        if isinstance(call, ast.Call) and call.func is above:
            iterated, above = call, parent(call)
    if isinstance(above, ast.comprehension) and above.iter is iterated:
        expression = parent(above)
        return expression if isinstance(expression, ast.GeneratorExp) else None
    return above if isinstance(above, (ast.For, ast.AsyncFor)) and above.iter is iterated else None


def _consumed_at_once(parent: Callable[[ast.AST], Optional[ast.AST]], expression: ast.GeneratorExp) -> bool:
    """``sorted(n for n in X)``, ``", ".join(...)``, ``next(m for m in X if ...)``: handed straight to a call
    that walks it (to the end, or to the first match) and drops it."""
    call = parent(expression)
    if not (isinstance(call, ast.Call) and call.args[:1] == [expression]):
        return False
    function = call.func
    return (isinstance(function, ast.Name) and function.id in _CONSUMING) or (isinstance(function, ast.Attribute) and function.attr == "join")


def _yields(node: ast.AST) -> list[ast.AST]:
    """The ``yield``s of the loop's own function under ``node`` (not those of a function defined in it)."""
    if isinstance(node, _SCOPES):
        return []
    if isinstance(node, (ast.Yield, ast.YieldFrom)):
        return [node]
    return [found for child in ast.iter_child_nodes(node) for found in _yields(child)]


def _caught(parent: Callable[[ast.AST], Optional[ast.AST]], above: ast.AST) -> Optional[int]:
    """The line of the ``try`` around the loop whose handler catches a change of size, or None."""
    child, current = above, parent(above)
    while current is not None and not isinstance(current, _SCOPES):
        if isinstance(current, ast.Try) and child in current.body and any(_catches(handler) for handler in current.handlers):
            return current.lineno
        child, current = current, parent(current)
    return None


def _catches(handler: ast.ExceptHandler) -> bool:
    caught = handler.type
    if caught is None:
        return True
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
    return any((name.attr if isinstance(name, ast.Attribute) else getattr(name, "id", "")) in _CATCHING for name in names)
