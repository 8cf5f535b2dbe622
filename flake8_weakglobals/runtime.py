"""WeakIdMap and WeakIdSet: containers keyed by object identity that never keep their keys alive.

Why: a module-level dict keyed by ``nn.Module``, ``nn.Parameter`` or ``Tensor`` objects keeps every key
alive for the life of the process. ``weakref.WeakKeyDictionary`` is no cure for tensors: its keys compare
with ``==``, ``Tensor.__eq__`` returns a tensor, and lookups raise "Boolean value of Tensor with more than
one value is ambiguous". These containers key on ``id()`` and hold each key through one weak reference.

Guarantees:
- Keys are never hashed or compared. A lookup finds the entry by ``id(key)`` and then checks that its weak
  reference still points at this very object, so a recycled id is never a stale hit.
- An entry disappears when its key is collected. The removal callback holds the container weakly, so a
  container never keeps itself alive, and there is no global registry (unlike ``weakref.finalize``).
- Iteration walks a snapshot: keys dying mid-loop never raise. Values are held strongly; a value that
  refers to its own key keeps that key alive, as in every weak-key map.
- Equality: equal to any mapping (set) with the same keys by identity and equal values (the same
  elements by identity). ``repr`` shows the entry count and the first five entries.
- Pickling raises ``TypeError``; ``copy.deepcopy`` keeps the keys and deep-copies the values.

Stdlib only and self-contained (Python 3.9+): flake8-weakglobals copies this file into projects it fixes.
"""
from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, ItemsView, Iterator, Mapping, MutableMapping, MutableSet, Set
from typing import Any, Optional, TypeVar

_K = TypeVar("_K")
_V = TypeVar("_V")
__all__ = ["WeakIdMap", "WeakIdSet"]


class _Entry(weakref.ref):
    """One entry: a weak reference to the key that also carries the key's id and the value."""

    __slots__ = ("key_id", "value")


def _describe(obj: object) -> str:
    return f"<{type(obj).__name__} at {id(obj):#x}>"


class _WeakIdStore:
    """What both containers share: ``id(key) -> _Entry`` storage, removal on collection, snapshots."""

    __slots__ = ("_data", "_remove", "__weakref__")

    def __init__(self) -> None:
        self._data: dict[int, _Entry] = {}

        def remove(entry: _Entry, selfref: weakref.ref = weakref.ref(self)) -> None:
            store = selfref()
            # The key is being finalized and still occupies its address, so no live object can hold
            # this id yet: the slot holds this entry unless an explicit delete already dropped it.
            if store is not None and store._data.get(entry.key_id) is entry:
                store._data.pop(entry.key_id, None)

        self._remove = remove

    def _entry(self, key: object) -> Optional[_Entry]:
        entry = self._data.get(id(key))
        return entry if entry is not None and entry() is key else None

    def __contains__(self, key: object) -> bool:
        entry = self._data.get(id(key))  # ``_entry`` inlined: ``in`` is a hot path
        return entry is not None and entry() is key

    def _put(self, key: object, value: Any) -> None:
        """Find or create the entry for ``key`` (inlined: this is the insert hot path)."""
        key_id = id(key)
        entry = self._data.get(key_id)
        if entry is not None and entry() is key:
            entry.value = value  # overwriting keeps the one weak reference
            return
        try:
            entry = _Entry(key, self._remove)
        except TypeError:
            raise TypeError(
                f"{type(self).__name__} keys must be weak-referenceable; "
                f"cannot create a weak reference to a {type(key).__name__!r} object"
            ) from None
        entry.key_id = key_id
        entry.value = value
        self._data[key_id] = entry

    def _live(self) -> Iterator[tuple[Any, _Entry]]:
        """Yield ``(key, entry)`` for live keys over a snapshot, so collection mid-loop never raises."""
        for entry in list(self._data.values()):
            key = entry()
            if key is not None:
                fix = getattr(type(key), "_fix_weakref", None)  # torch resurrects tensor objects
                if fix is not None:
                    fix(key)
                yield key, entry

    def _count_live(self) -> int:
        return sum(1 for _ in self._live())

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        self._data.clear()

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise TypeError(f"cannot pickle {type(self).__name__}: its keys are weak references to live objects")


class WeakIdMap(_WeakIdStore, MutableMapping[_K, _V]):
    """A mapping keyed by identity that holds keys weakly and values strongly.

    ``default_factory`` works as in ``collections.defaultdict``: a missing key read with ``[]`` is
    inserted with ``default_factory()``.
    """

    __slots__ = ("default_factory",)

    def __init__(
        self,
        other: Mapping[_K, _V] | Iterable[tuple[_K, _V]] = (),
        /,
        *,
        default_factory: Optional[Callable[[], _V]] = None,
    ) -> None:
        super().__init__()
        self.default_factory = default_factory
        self.update(other)

    @classmethod
    def fromkeys(cls, keys: Iterable[_K], value: Any = None) -> WeakIdMap[_K, Any]:
        return cls((key, value) for key in keys)

    def __getitem__(self, key: _K) -> _V:
        try:
            entry = self._data[id(key)]
            if entry() is key:
                return entry.value
        except KeyError:
            pass
        if self.default_factory is None:
            raise KeyError(key)
        value = self.default_factory()
        self._put(key, value)
        return value

    __setitem__ = _WeakIdStore._put

    def __delitem__(self, key: _K) -> None:
        if self._entry(key) is None:
            raise KeyError(key)
        self._data.pop(id(key), None)

    def __iter__(self) -> Iterator[_K]:
        return (key for key, _ in self._live())

    def get(self, key: _K, default: Any = None) -> Any:
        entry = self._data.get(id(key))  # ``_entry`` inlined: ``get`` is a hot path
        return entry.value if entry is not None and entry() is key else default

    def setdefault(self, key: _K, default: Any = None) -> Any:
        entry = self._entry(key)
        if entry is not None:
            return entry.value
        self._put(key, default)
        return default

    def pop(self, key: _K, *default: Any) -> Any:
        entry = self._entry(key)
        if entry is None:
            if default:
                return default[0]
            raise KeyError(key)
        self._data.pop(entry.key_id, None)
        return entry.value

    def popitem(self) -> tuple[_K, _V]:
        while self._data:
            _, entry = self._data.popitem()
            key = entry()
            if key is not None:
                return key, entry.value
        raise KeyError(f"popitem(): {type(self).__name__} is empty")

    def update(self, other: Mapping[_K, _V] | Iterable[tuple[_K, _V]] = (), /) -> None:
        for key, value in other.items() if isinstance(other, Mapping) else other:
            self[key] = value

    def __ior__(self, other: Mapping[_K, _V] | Iterable[tuple[_K, _V]]) -> WeakIdMap[_K, _V]:
        self.update(other)
        return self

    def items(self) -> _ItemsView[_K, _V]:
        return _ItemsView(self)

    def copy(self) -> WeakIdMap[_K, _V]:
        return WeakIdMap(((key, entry.value) for key, entry in self._live()), default_factory=self.default_factory)

    __copy__ = copy

    def __deepcopy__(self, memo: dict) -> WeakIdMap[_K, _V]:
        from copy import deepcopy

        pairs = [(key, deepcopy(entry.value, memo)) for key, entry in self._live()]
        return WeakIdMap(pairs, default_factory=self.default_factory)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mapping):
            return NotImplemented
        if self._count_live() != len(other):
            return False
        for key, value in other.items():
            entry = self._entry(key)
            if entry is None or not (entry.value is value or entry.value == value):
                return False
        return True

    def __repr__(self) -> str:
        shown = [f"{_describe(key)}: {entry.value!r}" for (key, entry), _ in zip(self._live(), range(5))]
        tail = ", ..." if len(self) > len(shown) else ""
        return f"{type(self).__name__}({len(self)} entries: {{{', '.join(shown)}{tail}}})"


class _ItemsView(ItemsView):
    """An items view whose ``(key, value) in view`` never calls ``default_factory`` for a missing key."""

    _mapping: WeakIdMap

    def __contains__(self, item: object) -> bool:
        key, value = item  # type: ignore[misc]
        entry = self._mapping._entry(key)
        return entry is not None and (entry.value is value or entry.value == value)


class WeakIdSet(_WeakIdStore, MutableSet[_K]):
    """A set of objects by identity that holds its elements weakly."""

    __slots__ = ()

    def __init__(self, elements: Iterable[_K] = (), /) -> None:
        super().__init__()
        self.update(elements)

    def __iter__(self) -> Iterator[_K]:
        return (element for element, _ in self._live())

    def add(self, element: _K) -> None:
        self._put(element, None)

    def discard(self, element: _K) -> None:
        if self._entry(element) is not None:
            self._data.pop(id(element), None)

    def update(self, *iterables: Iterable[_K]) -> None:
        for iterable in iterables:
            for element in iterable:
                self.add(element)

    def copy(self) -> WeakIdSet[_K]:
        return WeakIdSet(self)

    __copy__ = copy

    def __deepcopy__(self, memo: dict) -> WeakIdSet[_K]:
        return self.copy()  # deep copies of the elements would be new objects that nothing holds

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Set):
            return NotImplemented
        return self._count_live() == len(other) and all(self._entry(element) is not None for element in other)

    def __repr__(self) -> str:
        shown = [_describe(element) for (element, _), _ in zip(self._live(), range(5))]
        tail = ", ..." if len(self) > len(shown) else ""
        return f"{type(self).__name__}({len(self)} entries: {{{', '.join(shown)}{tail}}})"
