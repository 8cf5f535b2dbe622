"""A walk of a container inside a ``try`` that catches what a dict or a set raises when it changes size.

``for m in FROZEN: ... FROZEN.add(child)`` raises ``RuntimeError: Set changed size during iteration`` at
the next step, and code that catches it (to restart a pass, or to report an aborted clean-up) relies on
that. The weak replacements walk a snapshot and never raise (``runtime/maps.py`` says why), so there the
loop goes on and the program does something else. The proof cannot tell whether the loop's body changes
the container (through any function it calls), so the walk in such a ``try`` refuses the fix, here and in
other modules (``uses.py``, ``fixes/outside.py``).
"""
from __future__ import annotations

import ast
from typing import Callable, Optional

#: What a handler must catch to see the error: the error itself, or anything broader.
_CATCHING = frozenset({"RuntimeError", "Exception", "BaseException"})
_VIEWS = frozenset({"keys", "values", "items"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)


def caught_while_walked(parent: Callable[[ast.AST], Optional[ast.AST]], node: ast.expr) -> Optional[int]:
    """The line of the ``try`` whose handler would catch a change of size while ``node`` (a reference to
    the container) is walked by a ``for`` loop (over it, or its ``keys()``, ``values()``, ``items()``), or
    None."""
    iterated, above = node, parent(node)
    if isinstance(above, ast.Attribute) and above.value is node and above.attr in _VIEWS:
        call = parent(above)
        if isinstance(call, ast.Call) and call.func is above:
            iterated, above = call, parent(call)
    if not (isinstance(above, (ast.For, ast.AsyncFor)) and above.iter is iterated):
        return None
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
