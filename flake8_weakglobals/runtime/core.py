"""What every part of the runtime shares: which objects to hold weakly, by identity.

An object is held weakly only where the built-in container it replaces found it by identity anyway: its
class keeps ``object``'s ``__eq__`` and ``__hash__`` (``nn.Module``, plain classes) or is a torch tensor
hashed by ``id``, and it can be weakly referenced. A dict never compares two such objects with ``==`` (a
tensor's elementwise ``==`` would raise), so a weak reference found by ``id`` changes nothing but their
lifetime. Every other object (``str``, ``int``, tuples, classes with their own ``__eq__`` or ``__hash__``,
``__slots__`` without ``__weakref__``) is held strongly, by equality, as the container held it. The decision
is made once per class, remembered by the class's ``id`` so that no class is kept alive (torch.fx makes a
class per GraphModule).
"""
from __future__ import annotations

import sys
import weakref
from typing import Any

_MISSING: Any = object()  # "no value": never a key, a value or an argument of the user's

_by_identity: dict[int, bool] = {}  # id(class) -> whether its objects are held weakly, by identity
_class_refs: dict[int, weakref.ref] = {}  # id(class) -> a weak reference that drops the class's line
# ``_class_kind(id(type(x)))``: True or False, or None while undecided. A name of its own, because CPython
# compiles ``_by_identity.get(...)`` in a module that imports ``_by_identity`` without its method-call
# shortcut (an import-originated name), which made every insert of the parts 15% slower.
_class_kind = _by_identity.get


def _hashes_as_a_tensor(cls: type) -> bool:
    """``torch.Tensor`` hashes as ``id(self)``, unless a subclass brings its own hash (found in
    ``sys.modules``: no torch import, and no tensor exists before torch is imported)."""
    tensor = getattr(sys.modules.get("torch"), "Tensor", None)
    return tensor is not None and issubclass(cls, tensor) and cls.__hash__ is tensor.__hash__


def _classify(key: object) -> bool:
    """Decide, for ``key``'s class, whether a dict would find its objects by identity alone."""
    cls = type(key)
    identity = (cls.__eq__ is object.__eq__ and cls.__hash__ is object.__hash__) or _hashes_as_a_tensor(cls)
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
    """Whether ``key`` is held weakly, by identity (hot paths inline this: one dict lookup on a known class)."""
    kind = _class_kind(id(type(key)))
    return _classify(key) if kind is None else kind


def _revived(key: Any) -> Any:
    """``key``, read back from a weak reference. torch may resurrect a tensor's Python object, and wants
    ``_fix_weakref()`` called on it then (duck-typed: no torch import)."""
    fix = getattr(type(key), "_fix_weakref", None)
    if fix is not None:
        fix(key)
    return key
