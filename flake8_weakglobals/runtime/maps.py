"""WeakIdMap: the dict (or defaultdict) it replaces, except that an entry goes when its key is collected.

Keys are held as ``core`` decides. Otherwise a dict: insertion order across both kinds of key, ``repr``,
and every operator (``|``, ``==``, ``!=``) computed on a plain dict of the live entries, so that Python
picks the same method of the same operand as before (``m | defaultdict(int)`` is the right operand's
``defaultdict``), with the same result or error; a result is a plain, strong container, so nothing in it
vanishes because only it held a key. Iteration walks a snapshot: keys dying mid-loop never raise.
``torch.compile(fullgraph=True)`` traces ``[]``, ``get``, ``in`` and ``len``. Pickling raises ``TypeError``.
"""
from __future__ import annotations

import operator
import weakref
from collections import defaultdict
from collections.abc import Callable, ItemsView, Iterable, Iterator, KeysView, MutableMapping, ValuesView
from copy import deepcopy
from itertools import chain
from reprlib import recursive_repr
from types import MappingProxyType
from typing import Any, Optional, TypeVar

from .core import _MISSING, _class_kind, _classify, _on_plain, _revived, _weakly

_K, _V = TypeVar("_K"), TypeVar("_V")
__all__ = ["WeakIdMap"]
_first = operator.itemgetter(0)


class _Entry(weakref.ref):
    """A weakly held key's entry, under ``id(key)``; live while its ``__callback__`` is set."""
    __slots__ = ("key_id", "value")
    __init__ = object.__init__  # ``ref.__init__`` would parse the arguments ``__new__`` took again


class WeakIdMap(MutableMapping[_K, _V]):
    """A dict in insertion order: ``id(key) -> _Entry`` for keys held weakly, ``(key,) -> value`` for others."""
    __slots__ = ("_data", "_remove", "_weak_class", "default_factory", "__weakref__")

    def __init__(self, other: Any = (), /, *, default_factory: Optional[Callable[[], _V]] = None, **kwargs: _V) -> None:
        self._data: dict[Any, Any] = {}
        self._weak_class: Optional[type] = None
        self.default_factory = default_factory

        def remove(entry: _Entry, selfref: weakref.ref = weakref.ref(self)) -> None:
            store = selfref()  # the key still occupies its address: no live object can have its id yet
            if store is not None:
                store._weak_class = None
                if store._data.get(entry.key_id) is entry:
                    store._data.pop(entry.key_id, None)
        self._remove = remove
        self.update(other, **kwargs)

    def __getitem__(self, key: _K) -> _V:
        try:
            entry = self._data[id(key)]
            if entry.__callback__ is not None:
                return entry.value  # type: ignore[no-any-return]
        except KeyError:
            pass
        value = self.get(key, _MISSING)
        return self._missing(key) if value is _MISSING else value

    def _missing(self, key: Any) -> Any:  # ``KeyError``, or, as a defaultdict, a stored factory value
        if self.default_factory is None:
            raise KeyError(key)
        value = self[key] = self.default_factory()
        return value

    def get(self, key: Any, default: Any = None) -> Any:
        entry = self._data.get(id(key))
        if entry is not None and entry.__callback__ is not None:
            return entry.value
        return default if _weakly(key) else self._data.get(self._strong_slot(key), default)

    def __contains__(self, key: object) -> bool:
        entry = self._data.get(id(key))
        if entry is not None and entry.__callback__ is not None:
            return True
        return not _weakly(key) and self._strong_slot(key) in self._data

    def __setitem__(self, key: _K, value: _V) -> None:
        data, key_id = self._data, id(key)
        if key_id in data:  # ``in`` before ``get``: a new key, the usual insert, makes no method call
            entry = data.get(key_id)
            if entry is not None and entry.__callback__ is not None:
                entry.value = value  # overwriting keeps the one weak reference and the place
                return
            data.pop(key_id, None)  # a dead entry under a recycled id: the new key goes to the end
        if type(key) is not self._weak_class:  # the last weak key's class needs no decision
            weakly = _class_kind(id(type(key)))
            if not (weakly or (weakly is None and _classify(key))):
                data[self._strong_slot(key)] = value
                return
            self._weak_class = type(key)  # before the store: a removal that follows it drops the class
        entry = _Entry(key, self._remove)
        entry.key_id, entry.value = key_id, value
        data[key_id] = entry

    def _strong_slot(self, key: Any) -> tuple:  # a hook: StrictWeakIdMap raises for what it cannot hold
        return (key,)

    def _live(self, reverse: bool = False) -> Iterator[tuple[Any, Any]]:
        """``(key, value)`` in insertion order over a snapshot of the keys, each value read when reached."""
        data, snapshot = self._data, self._data.copy()  # one C-level copy: no removal callback runs half-way through it
        for slot, entry in reversed(snapshot.items()) if reverse else snapshot.items():
            if type(slot) is tuple:
                value = data.get(slot, _MISSING)
                if value is not _MISSING:  # deleted mid-walk: gone, as from the dict
                    yield slot[0], value
                continue
            key = entry()
            if key is not None:
                yield _revived(key), entry.value

    def _plain(self) -> dict:  # the container the program had (a dict, or a ``defaultdict``) with the live entries
        return dict(self._live()) if self.default_factory is None else defaultdict(self.default_factory, self._live())

    def __len__(self) -> int:
        return len(self._data)

    def __iter__(self) -> Iterator[_K]:
        return map(_first, self._live())

    def __reversed__(self) -> Iterator[_K]:
        return reversed(self.keys())

    def keys(self) -> _Keys[_K]:
        return _Keys(self)

    def values(self) -> _Values[_V]:
        return _Values(self)

    def items(self) -> _Items[_K, _V]:
        return _Items(self)

    def clear(self) -> None:
        self._weak_class = None
        self._data.clear()

    fromkeys = classmethod(lambda cls, keys, value=None: cls((key, value) for key in keys))

    def setdefault(self, key: _K, default: Any = None) -> Any:  # one step, as a dict's under the GIL
        found = self._data.get(id(key))
        if found is not None and found.__callback__ is not None:
            return found.value
        if not _weakly(key):
            return self._data.setdefault(self._strong_slot(key), default)
        entry = _Entry(key, self._remove)
        entry.key_id, entry.value = id(key), default
        if found is not None:
            self._data.pop(entry.key_id, None)  # a dead entry under a recycled id: the new key goes to the end
        return self._data.setdefault(entry.key_id, entry).value  # of threads storing one key, all get the first's

    def pop(self, key: _K, *default: Any) -> Any:
        entry = self._data.pop(id(key), None)  # one step: of threads popping one key, one gets its value
        if entry is not None and entry.__callback__ is not None:
            self._weak_class = None
            return entry.value
        value = _MISSING if _weakly(key) else self._data.pop(self._strong_slot(key), _MISSING)
        if value is _MISSING and not default:
            raise KeyError(key)
        return default[0] if value is _MISSING else value
    __delitem__ = pop  # ``del m[k]``: its value unused

    def popitem(self) -> tuple[_K, _V]:
        while self._data:
            slot, entry = self._data.popitem()
            if type(slot) is tuple:
                return slot[0], entry  # type: ignore[return-value]
            self._weak_class = None
            key = entry()
            if key is not None:
                return _revived(key), entry.value
        raise KeyError("popitem(): dictionary is empty")

    def update(self, other: Any = (), /, **kwargs: _V) -> None:
        """``dict.update``, step by step, with its errors (the pairs before a bad one are kept)."""
        pairs = other
        if isinstance(other, dict) and type(other).__iter__ is dict.__iter__:
            pairs = dict.items(other)  # a dict's own entries, without its overridden ``__getitem__``
        elif hasattr(other, "keys"):
            pairs = ((key, other[key]) for key in other.keys())
        for index, item in enumerate(chain(pairs, kwargs.items())):  # the keywords last, as a dict's
            try:
                pair = item if type(item) in (tuple, list) else list(item)
            except TypeError:
                raise TypeError(f"cannot convert dictionary update sequence element #{index} to a sequence") from None
            if len(pair) != 2:
                raise ValueError(f"dictionary update sequence element #{index} has length {len(pair)}; 2 is required")
            self[pair[0]] = pair[1]

    def __ior__(self, other: Any) -> WeakIdMap[_K, _V]:
        self.update(other)
        return self

    __or__, __ror__ = _on_plain(operator.or_), _on_plain(operator.or_, reflected=True)
    __eq__, __ne__ = _on_plain(operator.eq), _on_plain(operator.ne)
    __format__ = _on_plain(format)  # ``f"{m:>8}"`` raises as the dict's does, naming it
    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> WeakIdMap[_K, _V]:
        return type(self)(self._live(), default_factory=self.default_factory)
    __copy__ = copy

    def __deepcopy__(self, memo: dict) -> WeakIdMap[_K, _V]:
        result: WeakIdMap[_K, _V] = type(self)(default_factory=deepcopy(self.default_factory, memo))
        memo[id(self)] = result  # a value that refers to this map gets the copy, as with a dict
        for key, value in self._live():
            result[self._copied_key(key, memo)] = deepcopy(value, memo)
        return result
    _copied_key = staticmethod(deepcopy)  # a hook: StrictWeakIdMap shares the keys

    def __reduce_ex__(self, protocol: Any) -> Any:  # pickled as the dict it replaced, which a load gives back
        return (dict, (dict(self.items()),)) if self.default_factory is None else (defaultdict, (self.default_factory, dict(self.items())))

    def __repr__(self) -> str:
        entries = self._repr_entries()
        return entries if self.default_factory is None else f"defaultdict({self.default_factory!r}, {entries})"

    @recursive_repr("{...}")
    def _repr_entries(self) -> str:
        return "{" + ", ".join(f"{key!r}: {value!r}" for key, value in self._live()) + "}"


class _View:  # what the dict views add to the ``collections.abc`` ones
    _mapping: WeakIdMap
    _name: str
    _part: Callable[[tuple[Any, Any]], Any]  # what it shows of each ``(key, value)``

    def __iter__(self) -> Iterator[Any]:
        return map(self._part, self._mapping._live())

    def __reversed__(self) -> Iterator[Any]:
        return map(self._part, self._mapping._live(reverse=True))

    def __repr__(self) -> str:
        return f"dict_{self._name}({list(self)!r})"

    mapping = property(lambda self: MappingProxyType(self._mapping))  # a dict view's live, read-only window


class _Keys(_View, KeysView):
    _name, _part = "keys", _first


class _Values(_View, ValuesView):
    _name, _part = "values", operator.itemgetter(1)


class _Items(_View, ItemsView):
    _name, _part = "items", operator.itemgetter(0, 1)

    def __contains__(self, item: object) -> bool:  # never calls ``default_factory`` for a missing key
        key, value = item  # type: ignore[misc]
        mine = self._mapping.get(key, _MISSING)
        return mine is not _MISSING and (mine is value or mine == value)

