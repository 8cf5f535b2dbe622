"""What every part of the runtime shares: which objects to hold weakly, by identity.

An object is held weakly only where the built-in container it replaces found it by identity anyway: its
class keeps ``object``'s ``__eq__`` and ``__hash__`` (``nn.Module``, plain classes) or is a torch tensor
hashed by ``id``, and it can be weakly referenced. A dict never compares two such objects with ``==`` (a
tensor's elementwise ``==`` would raise), so a weak reference found by ``id`` changes nothing but their
lifetime. Every other object (``str``, ``int``, tuples, classes with their own ``__eq__`` or ``__hash__``,
``__slots__`` without ``__weakref__``) is held strongly, by equality, as the container held it. The decision
is made once per class, remembered by the class's ``id`` so that no class is kept alive (torch.fx makes a
class per GraphModule). Why the code is written as it is: docs/runtime.md, "Notes on the code".
"""
from __future__ import annotations

import sys
import weakref
from collections.abc import Callable
from typing import Any

_MISSING: Any = object()  # "no value": never a key, a value or an argument of the user's
_by_identity: dict[int, bool] = {}  # id(class) -> whether its objects are held weakly, by identity
_class_refs: dict[int, weakref.ref] = {}  # id(class) -> a weak reference that drops the class's line
_class_kind = _by_identity.get  # True, False, or None while undecided (a name of its own: a faster call)


def _classify(key: object) -> bool:
    """Whether a dict finds objects of ``key``'s class by identity alone (``object``'s or a tensor's hash)."""
    cls, tensor = type(key), getattr(sys.modules.get("torch"), "Tensor", None)
    identity = (cls.__eq__ is object.__eq__ and cls.__hash__ is object.__hash__) or (
        tensor is not None and issubclass(cls, tensor) and cls.__hash__ is tensor.__hash__)
    if identity:
        try:
            weakref.ref(key)
        except TypeError:  # int, str, tuple, __slots__ without __weakref__
            identity = False
    class_id = id(cls)

    def forget(_: weakref.ref) -> None:
        _by_identity.pop(class_id, None)
        _class_refs.pop(class_id, None)
    _class_refs[class_id] = weakref.ref(cls, forget)
    _by_identity[class_id] = identity
    return identity


def _weakly(key: object) -> bool:
    kind = _class_kind(id(type(key)))
    return _classify(key) if kind is None else kind


def _revived(key: Any) -> Any:
    """``key``, read back from a weak reference: torch wants ``_fix_weakref()`` on a tensor it resurrected."""
    fix = getattr(type(key), "_fix_weakref", None)
    if fix is not None:
        fix(key)
    return key


def _on_plain(operation: Callable[[Any, Any], Any], reflected: bool = False) -> Any:
    """An operator computed on ``_plain()``, the built-in container of the live contents, as it was."""
    return lambda self, other: operation(other, self._plain()) if reflected else operation(self._plain(), other)
