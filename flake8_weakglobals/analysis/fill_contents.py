"""What one fill puts in a container, once evidence is known: shared by the judges and the fix's safety check."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from ..syntax.qualified_names import Names
from .evidence import Obj, Seq, Tup, Value
from .recorded_uses import Fill

#: Builtins whose result is a number or a string, whatever they are given (``id(self)`` too: an address keeps
#: nothing alive)
_PLAIN_BUILTINS = frozenset(f"builtins.{name}" for name in "int float str bool len round hash repr id".split())
#: Tensor methods and attributes that give numbers, sizes, dtypes or devices: nothing that holds storage
_PLAIN_METHODS = frozenset("item numel dim element_size data_ptr size stride nelement get_device".split())
_PLAIN_ATTRIBUTES = frozenset("shape ndim nbytes itemsize dtype device is_cuda requires_grad".split())


@dataclass(frozen=True)
class Held:
    """What one fill puts in a container, once evidence is known."""

    fill: Fill
    value: Value  # the key, for a map; the element, for a set or a list
    stored: Value = None  # a map's value for that key

    @property
    def stored_object(self) -> Optional[Obj]:
        """A framework object stored as a map's value, alone or inside a tuple."""
        return self.stored if isinstance(self.stored, Obj) else object_in_tuple(self.stored)

    @property
    def object(self) -> Optional[Obj]:
        return self.value if isinstance(self.value, Obj) else None

    @property
    def in_tuple(self) -> Optional[Obj]:
        """A framework object inside a tuple key: pinned, and a tuple cannot be weakly referenced."""
        return object_in_tuple(self.value)


def object_in_tuple(value: Value) -> Optional[Obj]:
    """A framework object inside a tuple (or a list: ``save([loss, scores])``, or a record built as a dict
    literal), at any depth: one owned elsewhere if there is one, since one is enough for a pin (a record of the
    caller's tensor and a mask built from it keeps the caller's), else the first the code builds itself."""
    found: list[Obj] = []
    pending = list(value.items) if isinstance(value, Tup) else [value.element] if isinstance(value, Seq) else []
    while pending:
        item = pending.pop()
        if isinstance(item, Tup):
            pending.extend(item.items)
        elif isinstance(item, Seq):
            pending.append(item.element)
        elif isinstance(item, Obj):
            if item.foreign and not item.built:
                return item  # handed in: the pin, whatever else is beside it
            found.append(item)
    return next((obj for obj in found if obj.foreign), found[0] if found else None)


def plain_data(expr: Optional[ast.expr], names: Names, container: str = "") -> bool:
    """A value that can hold no object of anyone's: a number, a string, a size or a dtype (``t.numel()``,
    ``len(x)``, ``f"{n}"``, ``tuple(t.shape)``, a tuple of such). An id()-keyed map of them keeps nothing alive.
    Given the ``container``'s name, what it already holds counts as plain too where every fill is plain (the
    counter idiom: ``X[k] = X.get(k, 0) + 1``, by induction from the default)."""
    if isinstance(expr, ast.Constant):
        return expr.value is not Ellipsis
    if isinstance(expr, ast.JoinedStr):
        return True
    if isinstance(expr, ast.Tuple):
        return all(plain_data(element, names, container) for element in expr.elts)
    if isinstance(expr, ast.BinOp):
        return plain_data(expr.left, names, container) and plain_data(expr.right, names, container)
    if isinstance(expr, ast.UnaryOp):
        return plain_data(expr.operand, names, container)
    if isinstance(expr, (ast.Compare, ast.BoolOp)):
        return isinstance(expr, ast.Compare) or all(plain_data(value, names, container) for value in expr.values)
    if isinstance(expr, ast.Attribute):
        return expr.attr in _PLAIN_ATTRIBUTES
    if container and isinstance(expr, ast.Subscript) and _names(expr.value, container):
        return True  # ``X[k] += 1`` reads what the plain fills put there
    if isinstance(expr, ast.Subscript):
        return plain_data(expr.value, names)  # a part of a size is a size: ``x.shape[-2:]``
    if isinstance(expr, ast.Call):
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in _PLAIN_METHODS:
            return True
        if (
            container and isinstance(expr.func, ast.Attribute) and expr.func.attr == "get" and _names(expr.func.value, container)
            and len(expr.args) == 2 and plain_data(expr.args[1], names)
        ):
            return True  # ``X.get(k, 0)``: what a plain fill put there, or the plain default
        qualified = names.qualify(expr.func)
        if qualified == "builtins.tuple" and len(expr.args) == 1:
            return plain_data(expr.args[0], names)
        return qualified in _PLAIN_BUILTINS
    return False


def _names(expr: ast.expr, container: str) -> bool:
    """``X``, ``cls.X``, ``self.X``: a reference to the container by its own name."""
    return (isinstance(expr, ast.Name) and expr.id == container) or (isinstance(expr, ast.Attribute) and expr.attr == container)
