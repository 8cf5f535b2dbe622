"""Expressions that build containers: what they build and what they start with (how the fix rewrites them is
``rules/container_fix.py``'s)."""
from __future__ import annotations

import ast
import enum
from dataclasses import dataclass
from typing import Optional

from .qualified_names import Names


class ContainerType(enum.Enum):
    MAP = "dict"
    DEFAULT_MAP = "defaultdict"
    SET = "set"
    SEQUENCE = "list"
    WEAK_MAP = "WeakKeyDictionary"
    WEAK_SET = "WeakSet"
    PLACEHOLDER = "None"  # ``X = None``, bound to a container later through ``global X``

    @property
    def keyed(self) -> bool:
        """Maps report what they are keyed by; sets and lists report what they hold."""
        return self in (ContainerType.MAP, ContainerType.DEFAULT_MAP, ContainerType.WEAK_MAP)

    @property
    def runtime_name(self) -> Optional[str]:
        """The runtime class the fix builds: a weak container's fix keeps its promises (``Strict*``)."""
        if self is ContainerType.WEAK_MAP:
            return "StrictWeakIdMap"
        if self is ContainerType.WEAK_SET:
            return "StrictWeakIdSet"
        if self.keyed:
            return "WeakIdMap"
        return "WeakIdSet" if self is ContainerType.SET else "WeakIdList" if self is ContainerType.SEQUENCE else None


_CALLS = {
    "builtins.dict": ContainerType.MAP,
    "builtins.dict.fromkeys": ContainerType.MAP,
    "collections.OrderedDict": ContainerType.MAP,
    "typing.OrderedDict": ContainerType.MAP,
    "collections.defaultdict": ContainerType.DEFAULT_MAP,
    "builtins.set": ContainerType.SET,
    "builtins.list": ContainerType.SEQUENCE,
    "collections.deque": ContainerType.SEQUENCE,
    "weakref.WeakKeyDictionary": ContainerType.WEAK_MAP,
    "weakref.WeakSet": ContainerType.WEAK_SET,
}
_CALLED_NAMES = frozenset(callee.rpartition(".")[2] for callee in _CALLS)
_DISPLAYS = {
    ast.Dict: ContainerType.MAP,
    ast.DictComp: ContainerType.MAP,
    ast.Set: ContainerType.SET,
    ast.SetComp: ContainerType.SET,
    ast.List: ContainerType.SEQUENCE,
    ast.ListComp: ContainerType.SEQUENCE,
}


@dataclass(frozen=True)
class Constructor:
    type: ContainerType
    node: ast.expr
    callee: Optional[str] = None  # qualified name, for calls

    @property
    def word(self) -> str:
        """How messages name it: ``dict``, ``set``, ``list``, ``OrderedDict``, ``deque``, ``WeakSet``..."""
        if self.callee is None or self.callee.startswith("builtins."):
            return self.type.value
        return self.callee.rpartition(".")[2]


def classify(expr: Optional[ast.expr], names: Names) -> Optional[Constructor]:
    """The container ``expr`` builds, or None when it builds no container the analysis knows."""
    if expr is None:
        return None
    if isinstance(expr, ast.Constant) and expr.value is None:
        return Constructor(ContainerType.PLACEHOLDER, expr)
    display = _DISPLAYS.get(type(expr))
    if display is not None:
        return Constructor(display, expr)
    if isinstance(expr, ast.Call):
        function = expr.func
        last = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)
        if last in _CALLED_NAMES:  # cheap: most calls are not containers, and qualifying builds strings
            callee = names.qualify(function)
            if callee in _CALLS:
                return Constructor(_CALLS[callee], expr, callee)
    return None


@dataclass(frozen=True)
class Member:
    """What a container is filled with: one key (``item``), an iterable of keys, or of ``(key, value)`` pairs."""

    expr: ast.expr
    shape: str  # "item", "iterable" or "pairs"
    value: Optional[ast.expr] = None


def initial_members(constructor: Constructor) -> list[Member]:
    """The keys or elements a constructor starts with: display entries, comprehensions, call arguments."""
    return _members_of(constructor.node, constructor.type)


def _mapping_argument_members(expr: ast.expr) -> list[Member]:
    """Members of ``D.update(x)`` / ``D |= x``: a display or comprehension, else pairs to iterate."""
    if isinstance(expr, (ast.Dict, ast.DictComp)):
        return _members_of(expr, ContainerType.MAP)
    return [Member(expr, "pairs")]


def _members_of(node: ast.expr, container: ContainerType) -> list[Member]:
    if isinstance(node, ast.Dict):
        return [Member(key, "item", value) for key, value in zip(node.keys, node.values) if key is not None]
    if isinstance(node, ast.DictComp):
        return [Member(node.key, "item", node.value)]
    if isinstance(node, (ast.Set, ast.List)):
        return [Member(element, "item") for element in node.elts if not isinstance(element, ast.Starred)]
    if isinstance(node, (ast.SetComp, ast.ListComp)):
        return [Member(node.elt, "item")]
    if not isinstance(node, ast.Call) or not node.args or isinstance(node.args[0], ast.Starred):
        return []
    if isinstance(node.func, ast.Attribute) and node.func.attr == "fromkeys":
        return [Member(node.args[0], "iterable", node.args[1] if len(node.args) > 1 else None)]
    if container is ContainerType.DEFAULT_MAP:
        return _mapping_argument_members(node.args[1]) if len(node.args) > 1 else []
    if container.keyed:
        return _mapping_argument_members(node.args[0])
    return [Member(node.args[0], "iterable")]


def holds_nothing(value: Optional[ast.expr]) -> bool:
    """``None``, or an empty container (``{}``, ``[]``, ``()``, ``dict()``, ``list()``, ``set()``, ``tuple()``):
    what a slot or a container is set back to when what it held is let go."""
    if isinstance(value, ast.Constant):
        return value.value is None
    if isinstance(value, ast.Dict):
        return not value.keys
    if isinstance(value, (ast.List, ast.Tuple)):
        return not value.elts
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _EMPTY_CONSTRUCTORS and not (value.args or value.keywords)


_EMPTY_CONSTRUCTORS = frozenset({"dict", "list", "set", "tuple"})


def root_name(expr: ast.expr) -> str:
    """``collections`` for ``collections.OrderedDict``, ``Dict`` for ``Dict``."""
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else ""
