"""WeakIdMap and WeakIdSet: a dict and a set that never keep torch modules, parameters or tensors alive.

Why: a module-level dict keyed by ``nn.Module``, ``nn.Parameter`` or ``Tensor`` objects keeps every key
alive for the life of the process. ``weakref.WeakKeyDictionary`` is no cure for tensors: its keys compare
with ``==``, ``Tensor.__eq__`` returns a tensor, and lookups raise "Boolean value of Tensor with more than
one value is ambiguous". flake8-weakglobals rewrites ``names = {}`` into ``names = WeakIdMap()``, so these
containers behave as the dict (set) they replace, except that an entry goes when its key is collected.

How a key is held, decided once per class:
- Weakly, by identity, when identity is what a dict uses anyway: the class keeps ``object``'s ``__eq__``
  and ``__hash__`` (``nn.Module``, plain classes) or is a torch tensor whose ``__hash__`` is
  ``Tensor.__hash__`` (``id``-based), and its objects can be weakly referenced. Such a key is found by
  ``id(key)``, then checked to be this very object (a recycled id is never a stale hit); it is never
  hashed nor compared with ``==``.
- Strongly, by equality, exactly as a dict holds it: every other key (``str``, ``int``, ``None``, tuples,
  classes with their own ``__eq__`` or ``__hash__``, objects that cannot be weakly referenced).

Guarantees:
- Otherwise a dict's behaviour: insertion order across both kinds of key (overwriting keeps the place,
  ``popitem`` is LIFO), ``reversed`` of the map and its views, ``==``, ``|``, and ``repr``, printed as a
  dict (or, with ``default_factory``, a ``defaultdict``) of the live entries. A ``WeakIdSet`` iterates
  and prints as a built-in set of its live elements would.
- Operators that build a new container (``m | d``, ``s & t``, ``s.union(t)``) return a plain, strong
  ``dict`` (``defaultdict``) or ``set``: the container the program built before the rewrite, so nothing
  in a result vanishes because only the result held it.
- An entry disappears when its key is collected. The removal callback holds the container weakly, so a
  container never keeps itself alive, and there is no global registry (unlike ``weakref.finalize``): the
  one global is the per-class decision, keyed by ``id`` so that it keeps no class alive.
- Cost: a weakly held key costs what it did before (one ``id`` lookup and a dereference); a new key, a
  miss, and every strongly held key cost one more dict lookup (the per-class decision).
- Iteration walks a snapshot: keys dying mid-loop never raise. Values are held strongly; a value that
  refers to its own key keeps that key alive, as in every weak-key map.
- ``copy.deepcopy`` deep-copies keys and values with the memo, as for a dict: deep-copying
  ``(model, names)`` keys the copy by the copied parameters. Deep-copying a map alone makes fresh keys
  that nothing else holds, so those entries vanish. Pickling raises ``TypeError``.

Stdlib only and self-contained (Python 3.9+): flake8-weakglobals copies this file into projects it fixes.
"""
from __future__ import annotations

import operator
import weakref
from collections import defaultdict
from collections.abc import Callable, ItemsView, Iterable, Iterator, KeysView, Mapping, MutableMapping
from collections.abc import MutableSet, Set, ValuesView
from copy import deepcopy
from reprlib import recursive_repr
from typing import Any, Optional, TypeVar

_K = TypeVar("_K")
_V = TypeVar("_V")
__all__ = ["WeakIdMap", "WeakIdSet"]
_MISSING: Any = object()
_first = operator.itemgetter(0)


class _Entry(weakref.ref):
    """A weakly held key's entry: a weak reference to the key that also carries the key's id and the value."""

    __slots__ = ("key_id", "value")


# id(class) -> whether its objects are held weakly by identity. Keyed by id, so the cache keeps no class
# alive (torch.fx makes a class per GraphModule); a weak reference to the class drops its line.
_by_identity: dict[int, bool] = {}
_class_refs: dict[int, weakref.ref] = {}


def _hashes_as_a_tensor(cls: type) -> bool:
    """``torch.Tensor`` (found by name: no torch import) hashes as ``id(self)``, so a dict finds a live tensor
    by identity alone, whatever its elementwise ``==`` returns; unless a subclass brings its own hash."""
    for base in cls.__mro__:
        if base.__module__ == "torch" and base.__qualname__ == "Tensor":
            return cls.__hash__ is vars(base).get("__hash__")
    return False


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
    kind = _by_identity.get(id(type(key)))
    return _classify(key) if kind is None else kind


class _WeakIdStore:
    """What both containers share: one dict in insertion order, ``id(key) -> _Entry`` for keys held weakly
    and ``(key,) -> value`` for keys held strongly (a 1-tuple is never equal to an int, and hashes and
    compares as its key does, so a dict's rules, ``1 == True`` included, apply unchanged)."""

    __slots__ = ("_data", "_remove", "__weakref__")

    def __init__(self) -> None:
        self._data: dict[Any, Any] = {}

        def remove(entry: _Entry, selfref: weakref.ref = weakref.ref(self)) -> None:
            store = selfref()
            # The key is being finalized and still occupies its address, so no live object can hold
            # this id yet: the slot holds this entry unless an explicit delete already dropped it.
            if store is not None and store._data.get(entry.key_id) is entry:
                store._data.pop(entry.key_id, None)

        self._remove = remove

    def _get(self, key: Any, default: Any = None) -> Any:
        entry = self._data.get(id(key))
        if entry is not None and entry() is key:
            return entry.value
        weakly = _by_identity.get(id(type(key)))  # ``_weakly`` inlined, here and below: hot paths
        if weakly or (weakly is None and _classify(key)):
            return default
        return self._data.get((key,), default)

    def __contains__(self, key: object) -> bool:
        entry = self._data.get(id(key))
        if entry is not None and entry() is key:
            return True
        weakly = _by_identity.get(id(type(key)))
        return not (weakly or (weakly is None and _classify(key))) and (key,) in self._data

    def _put(self, key: Any, value: Any) -> None:
        """Set ``key``'s value (inlined: this is the insert hot path)."""
        data, key_id = self._data, id(key)
        entry = data.get(key_id)
        if entry is not None and entry() is key:
            entry.value = value  # overwriting keeps the one weak reference and the place
            return
        weakly = _by_identity.get(id(type(key)))
        if not (weakly or (weakly is None and _classify(key))):
            data[(key,)] = value
            return
        if entry is not None:
            data.pop(key_id, None)  # a dead entry under a recycled id: the new key goes to the end
        entry = _Entry(key, self._remove)
        entry.key_id, entry.value = key_id, value
        data[key_id] = entry

    def _pop(self, key: Any, default: Any) -> Any:
        entry = self._data.get(id(key))
        if entry is not None and entry() is key:
            self._data.pop(id(key), None)
            return entry.value
        return default if _weakly(key) else self._data.pop((key,), default)

    def _live(self, reverse: bool = False) -> Iterator[tuple[Any, Any]]:
        """Yield ``(key, value)`` in insertion order over a snapshot, so collection mid-loop never raises."""
        snapshot = self._data.copy()  # one C-level copy: no removal callback can run half-way through it
        for slot, entry in reversed(snapshot.items()) if reverse else snapshot.items():
            if type(slot) is tuple:
                yield slot[0], entry
                continue
            key = entry()
            if key is not None:
                fix = getattr(type(key), "_fix_weakref", None)  # torch resurrects tensor objects
                if fix is not None:
                    fix(key)
                yield key, entry.value

    def _pop_last(self, empty: str) -> tuple[Any, Any]:
        """Remove and return the last live ``(key, value)``, LIFO as ``dict.popitem``; ``KeyError(empty)``."""
        while self._data:
            slot, entry = self._data.popitem()
            if type(slot) is tuple:
                return slot[0], entry
            key = entry()
            if key is not None:
                return key, entry.value
        raise KeyError(empty)

    def _count_live(self) -> int:
        return sum(1 for _ in self._live())

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        self._data.clear()

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise TypeError(f"cannot pickle {type(self).__name__}: its keys are weak references to live objects")


class WeakIdMap(_WeakIdStore, MutableMapping[_K, _V]):
    """A dict whose identity-keyed keys are held weakly (see the module docstring); values are held strongly.

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
        **kwargs: _V,
    ) -> None:
        super().__init__()
        self.default_factory = default_factory
        self.update(other, **kwargs)

    @classmethod
    def fromkeys(cls, keys: Iterable[_K], value: Any = None) -> WeakIdMap[_K, Any]:
        return cls((key, value) for key in keys)

    def __getitem__(self, key: _K) -> _V:
        try:  # ``_get`` inlined: this is the lookup hot path
            entry = self._data[id(key)]
            if entry() is key:
                return entry.value
        except KeyError:
            pass
        value = _MISSING if _weakly(key) else self._data.get((key,), _MISSING)
        if value is not _MISSING:
            return value
        if self.default_factory is None:
            raise KeyError(key)
        value = self[key] = self.default_factory()
        return value

    __setitem__ = _WeakIdStore._put
    get = _WeakIdStore._get

    def __delitem__(self, key: _K) -> None:
        if self._pop(key, _MISSING) is _MISSING:
            raise KeyError(key)

    def __iter__(self) -> Iterator[_K]:
        return map(_first, self._live())

    def __reversed__(self) -> Iterator[_K]:
        return reversed(self.keys())

    def keys(self) -> _KeysView[_K]:
        return _KeysView(self)

    def values(self) -> _ValuesView[_V]:
        return _ValuesView(self)

    def items(self) -> _ItemsView[_K, _V]:
        return _ItemsView(self)

    def setdefault(self, key: _K, default: Any = None) -> Any:
        value = self._get(key, _MISSING)
        if value is _MISSING:
            self[key] = value = default
        return value

    def pop(self, key: _K, *default: Any) -> Any:
        value = self._pop(key, _MISSING)
        if value is _MISSING:
            if default:
                return default[0]
            raise KeyError(key)
        return value

    def popitem(self) -> tuple[_K, _V]:
        return self._pop_last("popitem(): dictionary is empty")

    def update(self, other: Mapping[_K, _V] | Iterable[tuple[_K, _V]] = (), /, **kwargs: _V) -> None:
        if isinstance(other, Mapping):
            other = other.items()
        elif hasattr(other, "keys"):  # what dict.update accepts as a mapping
            other = [(key, other[key]) for key in other.keys()]  # type: ignore[index]
        for key, value in other:
            self[key] = value
        for key, value in kwargs.items():
            self[key] = value  # type: ignore[index]

    def __ior__(self, other: Mapping[_K, _V] | Iterable[tuple[_K, _V]]) -> WeakIdMap[_K, _V]:
        self.update(other)
        return self

    def _strong(self, *parts: Any) -> dict:
        """``|``'s result: a plain dict (a ``defaultdict`` with our ``default_factory``), the container the
        program's dict (defaultdict) ``|`` built before the rewrite. A weak result would lose the keys
        that only it holds, and would print differently."""
        result: dict = {} if self.default_factory is None else defaultdict(self.default_factory)
        for part in parts:
            result.update(part)
        return result

    def __or__(self, other: Any) -> Any:
        return self._strong(self._live(), other) if isinstance(other, Mapping) else NotImplemented

    def __ror__(self, other: Any) -> Any:
        return self._strong(other, self._live()) if isinstance(other, Mapping) else NotImplemented

    def copy(self) -> WeakIdMap[_K, _V]:
        return WeakIdMap(self._live(), default_factory=self.default_factory)

    __copy__ = copy

    def __deepcopy__(self, memo: dict) -> WeakIdMap[_K, _V]:
        result: WeakIdMap[_K, _V] = WeakIdMap(default_factory=deepcopy(self.default_factory, memo))
        memo[id(self)] = result  # a value that refers to this map gets the copy, as with a dict
        for key, value in self._live():
            result[deepcopy(key, memo)] = deepcopy(value, memo)
        return result

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mapping):
            return NotImplemented
        if self._count_live() != len(other):
            return False
        for key, value in other.items():
            mine = self._get(key, _MISSING)
            if mine is _MISSING or not (mine is value or mine == value):
                return False
        return True

    def __repr__(self) -> str:
        entries = self._repr_entries()
        return entries if self.default_factory is None else f"defaultdict({self.default_factory!r}, {entries})"

    @recursive_repr("{...}")
    def _repr_entries(self) -> str:
        return "{" + ", ".join(f"{key!r}: {value!r}" for key, value in self._live()) + "}"


class _View:
    """What the three views add to the ``collections.abc`` ones: a snapshot walk, ``reversed`` (dict views
    are reversible) and a dict view's ``repr``."""

    _mapping: WeakIdMap
    _name: str
    _part: Callable[[tuple[Any, Any]], Any]  # what the view shows of each ``(key, value)``

    def __iter__(self) -> Iterator[Any]:
        return map(self._part, self._mapping._live())

    def __reversed__(self) -> Iterator[Any]:
        return map(self._part, self._mapping._live(reverse=True))

    def __repr__(self) -> str:
        return f"dict_{self._name}({list(self)!r})"


class _KeysView(_View, KeysView):
    _name, _part = "keys", operator.itemgetter(0)


class _ValuesView(_View, ValuesView):
    _name, _part = "values", operator.itemgetter(1)


class _ItemsView(_View, ItemsView):
    _name, _part = "items", operator.itemgetter(0, 1)

    def __contains__(self, item: object) -> bool:
        """``(key, value) in items()`` never calls ``default_factory`` for a missing key."""
        key, value = item  # type: ignore[misc]
        mine = self._mapping._get(key, _MISSING)
        return mine is not _MISSING and (mine is value or mine == value)


def _set_operator(operation: Callable[[Any, Any], Any]) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """A set operator and its reflected form, computed on a plain set of the live elements: the result is
    the plain, strong set the program's set operator built before the rewrite."""

    def forward(self: WeakIdSet, other: Any) -> Any:
        return operation(self._plain(), other) if isinstance(other, Set) else NotImplemented

    def reflected(self: WeakIdSet, other: Any) -> Any:
        return operation(other, self._plain()) if isinstance(other, Set) else NotImplemented

    return forward, reflected


class WeakIdSet(_WeakIdStore, MutableSet[_K]):
    """A set whose identity-keyed elements are held weakly (see the module docstring).

    Iteration and ``repr`` follow a built-in set of the live elements; operators and the methods that
    return a new set (``union``, ``intersection``, ...) return plain ``set`` objects.
    """

    __slots__ = ()

    def __init__(self, elements: Iterable[_K] = (), /) -> None:
        super().__init__()
        self.update(elements)

    def _plain(self) -> set[_K]:
        return {element for element, _ in self._live()}

    def __iter__(self) -> Iterator[_K]:
        return iter(self._plain())

    def add(self, element: _K) -> None:
        self._put(element, None)

    def discard(self, element: _K) -> None:
        self._pop(element, None)

    def pop(self) -> _K:
        """Remove and return an arbitrary element, as ``set.pop`` does (here the last one added)."""
        return self._pop_last("pop from an empty set")[0]  # type: ignore[no-any-return]

    def update(self, *iterables: Iterable[_K]) -> None:
        for iterable in iterables:
            for element in iterable:
                self.add(element)

    __and__, __rand__ = _set_operator(operator.and_)
    __or__, __ror__ = _set_operator(operator.or_)
    __sub__, __rsub__ = _set_operator(operator.sub)
    __xor__, __rxor__ = _set_operator(operator.xor)

    def union(self, *others: Iterable[Any]) -> set[Any]:
        return self._plain().union(*others)

    def intersection(self, *others: Iterable[Any]) -> set[Any]:
        return self._plain().intersection(*others)

    def difference(self, *others: Iterable[Any]) -> set[Any]:
        return self._plain().difference(*others)

    def symmetric_difference(self, other: Iterable[Any]) -> set[Any]:
        return self._plain().symmetric_difference(other)

    def issubset(self, other: Iterable[Any]) -> bool:
        return self._plain().issubset(other)

    def issuperset(self, other: Iterable[Any]) -> bool:
        return self._plain().issuperset(other)

    def intersection_update(self, *others: Iterable[Any]) -> None:
        self.__iand__(self.intersection(*others))

    def difference_update(self, *others: Iterable[Any]) -> None:
        self.__isub__(set().union(*others))

    def symmetric_difference_update(self, other: Iterable[Any]) -> None:
        self.__ixor__(set(other))

    def copy(self) -> WeakIdSet[_K]:
        return WeakIdSet(element for element, _ in self._live())

    __copy__ = copy

    def __deepcopy__(self, memo: dict) -> WeakIdSet[_K]:
        result: WeakIdSet[_K] = WeakIdSet()
        memo[id(self)] = result
        result.update(deepcopy(element, memo) for element, _ in self._live())
        return result

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Set):
            return NotImplemented
        return self._count_live() == len(other) and all(element in self for element in other)

    def __repr__(self) -> str:
        return repr(self._plain())
