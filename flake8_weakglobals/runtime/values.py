"""WeakValueMap: the dict it replaces, except that an entry goes when its value is collected.

The fix of a registry from names (or numbers, or tuples of them) to the modules, parameters and tensors that
other code owns: ``_LAYERS[prefix] = self`` in a layer's ``__init__`` keeps every layer of every model ever
built, and a ``WeakValueMap`` keeps each only while something else does. Values are held as ``core``
decides for keys: an object a dict never compares to find it (a module, a tensor, a plain object) weakly,
everything else (``str``, ``int``, tuples, lists, objects with their own ``__eq__``) strongly. Keys are held as
a dict holds them. Everything else is ``WeakIdMap``'s, so a dict's: insertion order, ``repr``, views, every
operator computed on a plain dict of the live entries, and ``default_factory``.

One difference a dict's values can show: ``d == m`` with a dict on the left is computed by ``m`` (a dict
cannot compare with a map that is no dict), which compares the values of equal keys in its own order; where
two values raise when compared (tensors), the dict may have stopped first at another key whose values differ.

``weakref.WeakValueDictionary`` is no drop-in: it raises ``TypeError`` for a value of ``int`` or ``str``, prints
as ``<WeakValueDictionary at 0x...>``, and its ``|`` builds another weak map, whose entries the result alone
would then drop.
"""
from __future__ import annotations

import weakref
from collections.abc import Iterator
from typing import Any

from .core import _MISSING, _class_kind, _classify, _revived
from .maps import _K, _V, WeakIdMap

__all__ = ["WeakValueMap"]


class _ValueRef(weakref.ref):
    """A weakly held value, stored under its key. ``key_id`` is that key (the name ``WeakIdMap``'s removal
    callback reads: it drops the entry stored under ``key_id`` if it is still this one). Its own class, so
    that a ``weakref.ref`` the program stores as a value stays a value."""

    __slots__ = ("key_id",)


class WeakValueMap(WeakIdMap[_K, _V]):
    """A dict whose identity-compared values are held weakly: ``key -> _ValueRef`` for those, ``key ->
    value`` for the others, in one dict in insertion order. A key that refers to its value keeps it alive."""

    __slots__ = ()

    @staticmethod
    def _value(stored: Any) -> Any:
        """The value an entry holds, or ``_MISSING`` for none or one already collected."""
        if type(stored) is not _ValueRef:
            return stored
        value = stored()
        return _MISSING if value is None else _revived(value)

    def __getitem__(self, key: _K) -> _V:
        value = self._value(self._data.get(key, _MISSING))
        return self._missing(key) if value is _MISSING else value

    def get(self, key: Any, default: Any = None) -> Any:
        value = self._value(self._data.get(key, _MISSING))
        return default if value is _MISSING else value

    def __contains__(self, key: object) -> bool:
        return self._value(self._data.get(key, _MISSING)) is not _MISSING

    def __setitem__(self, key: _K, value: _V) -> None:
        weakly = _class_kind(id(type(value)))
        if weakly or (weakly is None and _classify(value)):
            ref = _ValueRef(value, self._remove)
            ref.key_id = key
            self._data[key] = ref  # an existing key keeps its place, as in a dict
        else:
            self._data[key] = value

    def setdefault(self, key: _K, default: Any = None) -> Any:
        value = self.get(key, _MISSING)
        if value is _MISSING:
            self[key] = value = default
        return value

    def pop(self, key: _K, *default: Any) -> Any:
        value = self._value(self._data.pop(key, _MISSING))
        if value is _MISSING and not default:
            raise KeyError(key)
        return default[0] if value is _MISSING else value

    def _live(self, reverse: bool = False) -> Iterator[tuple[Any, Any]]:
        """``(key, value)`` in insertion order over a snapshot of the keys, each value read as the walk gets
        there (one deleted or collected mid-walk is skipped)."""
        data = self._data
        keys = list(data)
        for key in reversed(keys) if reverse else keys:
            value = self._value(data.get(key, _MISSING))
            if value is not _MISSING:
                yield key, value

    def popitem(self) -> tuple[_K, _V]:
        """Remove and return the last live ``(key, value)``, LIFO as ``dict.popitem``."""
        while self._data:
            key, stored = self._data.popitem()
            value = self._value(stored)
            if value is not _MISSING:
                return key, value
        raise KeyError("popitem(): dictionary is empty")
