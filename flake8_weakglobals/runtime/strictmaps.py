"""StrictWeakIdMap: the ``weakref.WeakKeyDictionary`` it replaces, its keys compared by identity.

A part of its own, built on ``maps``: only a file whose ``WeakKeyDictionary`` was fixed imports it, so a
fix of dicts alone does not vendor it.
"""
from __future__ import annotations

import weakref
from typing import Any

from .maps import _K, _V, WeakIdMap

__all__ = ["StrictWeakIdMap"]


class StrictWeakIdMap(WeakIdMap[_K, _V]):
    """The fix of a ``weakref.WeakKeyDictionary``: its keys compared by identity, never with ``==`` (which
    raises for tensors), and otherwise its promises: a key that cannot be weakly referenced raises
    ``TypeError`` (``in`` is False), and ``deepcopy`` shares the keys and copies the values."""

    __slots__ = ()

    def _strong_slot(self, key: Any) -> tuple:
        weakref.ref(key)  # ``TypeError``, as from ``WeakKeyDictionary``
        return (key,)

    def __contains__(self, key: object) -> bool:
        try:
            return super().__contains__(key)
        except TypeError:  # what ``WeakKeyDictionary`` cannot hold, its ``in`` says it does not
            return False

    @staticmethod
    def _copied_key(key: Any, memo: dict) -> Any:
        return key  # shared, as by ``WeakKeyDictionary``
