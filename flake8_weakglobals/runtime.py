"""WeakIdMap, WeakIdSet and weak_lru_cache: a dict, a set and a cache that never keep torch modules,
parameters or tensors alive.

Why: a module-level dict keyed by ``nn.Module``, ``nn.Parameter`` or ``Tensor`` objects keeps every key
alive for the life of the process. ``weakref.WeakKeyDictionary`` is no cure for tensors: its keys compare
with ``==``, ``Tensor.__eq__`` returns a tensor, and lookups raise "Boolean value of Tensor with more than
one value is ambiguous". flake8-weakglobals rewrites ``names = {}`` into ``names = WeakIdMap()``, so these
containers behave as the dict (set) they replace, except that an entry goes when its key is collected.

How a key is held, decided once per class:
- Weakly, by identity, when identity is what a dict uses anyway: the class keeps ``object``'s ``__eq__``
  and ``__hash__`` (``nn.Module``, plain classes) or is a torch tensor whose ``__hash__`` is
  ``Tensor.__hash__`` (``id``-based), and its objects can be weakly referenced. Such a key is found by
  ``id(key)``, then its entry is checked to be live, so that it is this very object (a recycled id is never
  a stale hit: see ``_Entry``); it is never hashed nor compared with ``==``.
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
- Cost: a weakly held key costs what it did before (one ``id`` lookup and a liveness check); a new key, a
  miss, and every strongly held key cost one more dict lookup (the per-class decision).
- Iteration walks a snapshot of the keys: keys dying mid-loop never raise, and values are read as the
  loop reaches them. An insert mid-loop does not raise the dict's ``RuntimeError`` (threads: see
  ``_live``). Values are held strongly; a value that refers to its own key keeps that key alive, as in
  every weak-key map.
- ``torch.compile(..., fullgraph=True)`` traces ``[]``, ``get``, ``in``, ``len`` and overwriting a value,
  as for a dict: dynamo guards on the key's identity, its entry and the value read, so a value set or a
  key added after compiling is seen (a tensor value as a graph input, any other by a recompile, as with a
  dict). Iterating, and adding a new module or tensor key, inside a compiled region cannot be traced
  (they call or create the weak reference).
- ``copy.deepcopy`` deep-copies keys and values with the memo, as for a dict: deep-copying
  ``(model, names)`` keys the copy by the copied parameters. Deep-copying a map alone makes fresh keys
  that nothing else holds, so those entries vanish. Pickling raises ``TypeError``.
- ``StrictWeakIdMap`` / ``StrictWeakIdSet``, the fix of a ``WeakKeyDictionary`` / ``WeakSet``, keep those
  containers' promises instead: only weakly referenceable keys (``TypeError`` otherwise), and a deep copy
  shares the keys.

``weak_lru_cache`` / ``weak_cache`` replace ``functools.lru_cache`` / ``functools.cache`` (see their
section at the end of this file).

Stdlib only and self-contained (Python 3.9+): flake8-weakglobals copies this file into projects it fixes.
"""
from __future__ import annotations

import functools
import operator
import sys
import threading
import weakref
from collections import defaultdict, namedtuple
from collections.abc import Callable, ItemsView, Iterable, Iterator, KeysView, Mapping, MutableMapping
from collections.abc import MutableSet, Set, ValuesView
from copy import deepcopy
from reprlib import recursive_repr
from types import MethodType
from typing import Any, Optional, TypeVar

_K = TypeVar("_K")
_V = TypeVar("_V")
__all__ = ["StrictWeakIdMap", "StrictWeakIdSet", "WeakIdMap", "WeakIdSet", "weak_cache", "weak_lru_cache", "weak_shared_cache", "weak_shared_lru_cache"]
_MISSING: Any = object()
_first = operator.itemgetter(0)


class _Entry(weakref.ref):
    """A weakly held key's entry: a weak reference to the key that also carries the key's id and the value.

    Stored under ``id(key)``. A lookup tests that the entry is live by its ``__callback__`` instead of
    calling it, because torch.compile (dynamo) reads the attributes of a ``weakref.ref`` subclass but cannot
    call one. A live entry under ``id(key)`` is ``key``'s own, since two live objects never share an id.
    When a key dies by reference counting, CPython sets ``__callback__`` to ``None`` and then calls it; when
    the garbage collector frees it, ``__callback__`` stays set, but the callback removes the entry before
    the key's memory, and so its id, can be reused. The one entry that outlives its key with
    ``__callback__`` set: one whose container was garbage too (the collector then skips its callback) and
    was brought back by a ``__del__``; a lookup under that id could then hit it, where calling the entry
    would miss. Iteration, which needs the key, calls the entry and skips it.
    """

    __slots__ = ("key_id", "value")


# id(class) -> whether its objects are held weakly by identity. Keyed by id, so the cache keeps no class
# alive (torch.fx makes a class per GraphModule); a weak reference to the class drops its line.
_by_identity: dict[int, bool] = {}
_class_refs: dict[int, weakref.ref] = {}


def _hashes_as_a_tensor(cls: type) -> bool:
    """``torch.Tensor`` (found in ``sys.modules``: no torch import; no tensor exists before torch is imported)
    hashes as ``id(self)``, so a dict finds a live tensor by identity alone, whatever its elementwise ``==``
    returns; unless a subclass brings its own hash."""
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
    kind = _by_identity.get(id(type(key)))
    return _classify(key) if kind is None else kind


class _WeakIdStore:
    """What both containers share: one dict in insertion order, ``id(key) -> _Entry`` for keys held weakly
    and ``(key,) -> value`` for keys held strongly (a 1-tuple is never equal to an int, and hashes and
    compares as its key does, so a dict's rules, ``1 == True`` included, apply unchanged)."""

    __slots__ = ("_data", "_remove", "__weakref__")
    _strict = False  # ``Strict*``: as ``WeakKeyDictionary``/``WeakSet``, take only what can be weakly referenced

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
        if entry is not None and entry.__callback__ is not None:
            return entry.value
        weakly = _by_identity.get(id(type(key)))  # ``_weakly`` inlined, here and below: hot paths
        if weakly or (weakly is None and _classify(key)):
            return default
        return self._data.get(self._strong_slot(key), default)

    def _strong_slot(self, key: Any) -> tuple:
        """The slot of a key held by equality. A strict container refuses, with ``TypeError``, the keys that
        ``WeakKeyDictionary`` refuses: those that cannot be weakly referenced at all."""
        if self._strict:
            weakref.ref(key)
        return (key,)

    def __contains__(self, key: object) -> bool:
        entry = self._data.get(id(key))
        if entry is not None and entry.__callback__ is not None:
            return True
        weakly = _by_identity.get(id(type(key)))
        if weakly or (weakly is None and _classify(key)):
            return False
        if self._strict:
            try:
                weakref.ref(key)
            except TypeError:  # what ``WeakKeyDictionary`` cannot hold, its ``in`` says it does not
                return False
        return (key,) in self._data

    def _put(self, key: Any, value: Any) -> None:
        """Set ``key``'s value (inlined: this is the insert hot path)."""
        data, key_id = self._data, id(key)
        entry = data.get(key_id)
        if entry is not None and entry.__callback__ is not None:
            entry.value = value  # overwriting keeps the one weak reference and the place
            return
        weakly = _by_identity.get(id(type(key)))
        if not (weakly or (weakly is None and _classify(key))):
            data[self._strong_slot(key)] = value
            return
        if entry is not None:
            data.pop(key_id, None)  # a dead entry under a recycled id: the new key goes to the end
        entry = _Entry(key, self._remove)
        entry.key_id, entry.value = key_id, value
        data[key_id] = entry

    def _pop(self, key: Any, default: Any) -> Any:
        entry = self._data.get(id(key))
        if entry is not None and entry.__callback__ is not None:
            self._data.pop(id(key), None)
            return entry.value
        return default if _weakly(key) else self._data.pop(self._strong_slot(key), default)

    def _live(self, reverse: bool = False) -> Iterator[tuple[Any, Any]]:
        """``(key, value)`` in insertion order over a snapshot of the keys, so that collection mid-loop never
        raises; each value is read as the walk reaches it, as a dict's ``items()`` reads it. A change of
        size mid-walk does not raise the dict's ``RuntimeError``: the walk is Python code, so another
        thread may insert during ``list(m.items())``, which a dict's C loop never lets happen."""
        snapshot = self._data.copy()  # one C-level copy: no removal callback can run half-way through it
        data = self._data
        for slot, entry in reversed(snapshot.items()) if reverse else snapshot.items():
            if type(slot) is tuple:
                value = data.get(slot, _MISSING)
                if value is not _MISSING:  # deleted mid-walk: gone, as from the dict
                    yield slot[0], value
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
            if entry.__callback__ is not None:
                return entry.value
        except KeyError:
            pass
        value = _MISSING if _weakly(key) else self._data.get(self._strong_slot(key), _MISSING)
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
        return type(self)(self._live(), default_factory=self.default_factory)

    __copy__ = copy

    def __deepcopy__(self, memo: dict) -> WeakIdMap[_K, _V]:
        result: WeakIdMap[_K, _V] = type(self)(default_factory=deepcopy(self.default_factory, memo))
        memo[id(self)] = result  # a value that refers to this map gets the copy, as with a dict
        for key, value in self._live():  # a strict map shares its keys, as ``WeakKeyDictionary`` does
            result[key if self._strict else deepcopy(key, memo)] = deepcopy(value, memo)
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
        return type(self)(element for element, _ in self._live())

    __copy__ = copy

    def __deepcopy__(self, memo: dict) -> WeakIdSet[_K]:
        result: WeakIdSet[_K] = type(self)()
        memo[id(self)] = result
        result.update(element if self._strict else deepcopy(element, memo) for element, _ in self._live())
        return result

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Set):
            return NotImplemented
        return self._count_live() == len(other) and all(element in self for element in other)

    def __repr__(self) -> str:
        return repr(self._plain())


class StrictWeakIdMap(WeakIdMap[_K, _V]):
    """The fix of a ``weakref.WeakKeyDictionary``: its keys compared by identity, never with ``==`` (which
    raises for tensors), and otherwise its promises: a key that cannot be weakly referenced raises
    ``TypeError`` (``in`` is False), and ``deepcopy`` shares the keys and copies the values."""

    __slots__ = ()
    _strict = True


class StrictWeakIdSet(WeakIdSet[_K]):
    """The fix of a ``weakref.WeakSet``, as ``StrictWeakIdMap`` is of a ``WeakKeyDictionary``."""

    __slots__ = ()
    _strict = True


# --- weak_lru_cache / weak_cache ---------------------------------------------------------------------------
#
# ``functools.lru_cache`` on a method keeps one process-wide dict keyed by ``(self, *args)``: every instance
# it ever saw stays alive, with the tensors it returned. These replacements keep ``lru_cache``'s surface
# (``cache_info``, ``cache_clear``, ``cache_parameters``, ``__wrapped__``, ``typed``, thread safety) and
# never keep an argument alive that a dict would find by identity (modules, parameters, tensors, plain
# objects: the rule ``WeakIdMap`` applies to keys).
#
# - Methods (the cached function read through an instance): each instance gets its own C ``lru_cache``,
#   stored in the instance's ``__dict__``. It dies with the instance, costs a hit one attribute read more
#   than ``lru_cache``, and ``maxsize`` counts per instance: one model's calls can no longer evict another's,
#   and an unbounded cache is bounded by its instance's life. The per-instance cache refers to its instance
#   only weakly, or the instance would keep itself alive. A copy or a pickle of the instance does not share
#   it (the copy builds its own). Instances without ``__dict__`` (``__slots__``) and classes (under
#   ``@classmethod``) take the function path below, where the instance is an argument held weakly.
#   Other arguments of a method are held as ``lru_cache`` holds them, for as long as the instance lives:
#   where they are modules or tensors and the instance outlives them (a coordinator caching per submodule),
#   ``weak_shared_lru_cache`` / ``weak_shared_cache`` keep one cache for every instance, as ``lru_cache``
#   does, and take the function path for every call, ``self`` held weakly like the other arguments.
# - Functions (and static methods, and methods reached as ``Class.method(obj, ...)``): one cache, in which an
#   argument found by identity is represented by a token, a weak reference: when the argument is collected,
#   every entry whose key holds it goes. A token is looked up by ``id`` and checked to point at this very
#   object, so a recycled id never hits. Other arguments are hashed as ``lru_cache`` hashes them.
# - Under torch.compile / torch.export, as with ``lru_cache``, the compiler traces the function itself: a
#   method not yet bound to its instance is read as the plain method while tracing, so no entry computed
#   from fake tensors is kept.

CacheInfo = namedtuple("CacheInfo", ["hits", "misses", "maxsize", "currsize"])
_KEYWORDS = object()  # separates positional from keyword arguments in a key, as ``lru_cache``'s mark does


class _Token(weakref.ref):
    """An argument held weakly in a function cache's keys: one per live object and cache, hashed and compared
    by identity (a plain ``weakref.ref`` compares its referents with ``==``, which raises for tensors).
    ``keys`` are the cache keys that hold it, dropped when its object is collected."""

    __slots__ = ("key_id", "keys")
    __hash__ = object.__hash__
    __eq__ = object.__eq__


class _InstanceCache:
    """What an instance's ``__dict__`` holds for one cached method: its ``lru_cache`` and a weak reference to
    the instance it belongs to. A copied ``__dict__`` (``copy.copy``, ``DataParallel`` replicas) still names
    the original owner, so the copy builds its own; deep copies and pickles get ``None`` in its place. (A
    ``weakref.ref`` subclass carrying the cache would save a hit 10% more, but torch.compile cannot call one.)"""

    __slots__ = ("owner", "call")

    def __init__(self, owner: weakref.ref, call: Callable[..., Any]) -> None:
        self.owner, self.call = owner, call

    def __reduce__(self) -> tuple[Callable[[], None], tuple[()]]:
        return _expired, ()


def _expired() -> None:
    """An unpickled or deep-copied ``_InstanceCache``: nothing, rebuilt on the first call."""
    return None


def _compiling() -> bool:
    """Whether torch's compiler is tracing this call (found without importing torch): it cannot trace the
    creation of an instance's cache."""
    is_compiling = getattr(getattr(sys.modules.get("torch"), "compiler", None), "is_compiling", None)
    return bool(is_compiling is not None and is_compiling())


def _collected(*args: Any, **kwargs: Any) -> Any:
    raise ReferenceError("the instance this cached method was read from has been collected: call it through the instance")


class _WeakLruCache:
    """The cached function: a descriptor that gives each instance its own cache, and, called directly, a
    function cache whose identity-keyed arguments are held weakly (see the section comment above)."""

    __slots__ = (
        "_maxsize", "_typed", "_data", "_tokens", "_hits", "_misses", "_lock", "_forget", "_slot", "_instances",
        "_signature", "_call", "__dict__", "__weakref__",
    )

    def __init__(self, function: Callable[..., Any], maxsize: Optional[int], typed: bool) -> None:
        functools.update_wrapper(self, function)
        self._maxsize, self._typed = maxsize, typed
        self._data: dict[tuple, Any] = {}  # key -> result, least recently used first
        self._tokens: dict[int, _Token] = {}  # id(argument) -> its token
        self._hits = self._misses = 0
        self._lock = threading.RLock()
        self._slot = f"__weak_lru_cache_{getattr(function, '__name__', 'function')}_{id(self):x}"
        self._instances: weakref.WeakSet = weakref.WeakSet()  # every live per-instance cache
        self._signature: Any = None

        def forget(token: _Token, selfref: weakref.ref = weakref.ref(self)) -> None:
            """An argument was collected: drop its token and every entry that holds it. Runs in whatever
            thread collects it, so it takes no lock: each step is one atomic dict operation."""
            cache = selfref()
            if cache is not None:
                if cache._tokens.get(token.key_id) is token:
                    cache._tokens.pop(token.key_id, None)
                for key in tuple(token.keys):
                    cache._data.pop(key, None)

        self._forget = forget
        self._call = call = functools.update_wrapper(self._function_path(), function)
        call.cache_info, call.cache_clear, call.cache_parameters = self.cache_info, self.cache_clear, self.cache_parameters
        call._weak_lru_cache = self  # type: ignore[attr-defined]  # the state, for tests and debugging

    # --- methods: one cache per instance ---

    def __get__(self, instance: Any, owner: Optional[type] = None) -> Any:
        try:  # the hit path of every method call: one dict lookup and one weak reference more than lru_cache
            slot = instance.__dict__[self._slot]
            if slot.owner() is instance:
                return slot.call
        except (KeyError, AttributeError):  # not bound yet (or expired: None); no ``__dict__``; read on the class
            if instance is None:
                return self
        return self._bind(instance)

    def _bind(self, instance: Any) -> Any:
        """The first read through ``instance``: its own ``lru_cache``, kept in its ``__dict__``."""
        namespace = getattr(instance, "__dict__", None)
        if isinstance(instance, type) or not isinstance(namespace, dict):
            return MethodType(self._call, instance)  # the function path, which holds the instance weakly if it can
        if _compiling():  # what torch.compile does with lru_cache: it ignores the cache and traces the method
            return functools.partial(self.__wrapped__, instance)  # a partial, which dynamo traces (MethodType it cannot)
        owner, function = weakref.ref(instance), self.__wrapped__

        def call(*args: Any, **kwargs: Any) -> Any:
            this = owner()
            return (_collected if this is None else function)(this, *args, **kwargs)

        cached = functools.lru_cache(maxsize=self._maxsize, typed=self._typed)(call)
        functools.update_wrapper(cached, function)
        call.__wrapped__ = function  # type: ignore[attr-defined]  # inspect.unwrap reaches the original
        # torch.compile traces a C lru_cache's ``__wrapped__`` with the call's arguments: ``call`` adds ``self``.
        cached.__wrapped__ = call  # type: ignore[attr-defined]
        signature = self._bound_signature()
        if signature is not None:
            cached.__signature__ = signature  # type: ignore[attr-defined]  # a bound method's: no ``self``
        with self._lock:  # two threads binding the same instance share one cache
            slot = namespace.get(self._slot)
            if slot is None or slot.owner() is not instance:
                slot = namespace[self._slot] = _InstanceCache(owner, cached)
                self._instances.add(cached)
        return slot.call

    def _bound_signature(self) -> Any:
        """The signature a bound method of the wrapped function shows, computed once (``inspect`` is slow)."""
        if self._signature is None:
            import inspect

            try:
                signature = inspect.signature(self.__wrapped__)
                self._signature = signature.replace(parameters=list(signature.parameters.values())[1:])
            except (TypeError, ValueError):
                self._signature = False
        return self._signature or None

    # --- functions: one cache, identity-keyed arguments held weakly ---

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(*args, **kwargs)

    def _function_path(self) -> Callable[..., Any]:
        """The call of the function cache, as a closure: what a plain function decorated with
        ``weak_lru_cache`` is (a closure's locals are faster than attributes, and a function call than a
        ``__call__``: that is a third of a hit's cost)."""
        data, tokens, key_of, store, function = self._data, self._tokens, self._key, self._store, self.__wrapped__
        typed, bounded, counts = self._typed, self._maxsize is not None, self

        def call(*args: Any, **kwargs: Any) -> Any:
            if kwargs or typed:
                key = key_of(args, kwargs)
            else:  # the hit path: an argument with a live token stands as its token, any other as itself
                parts = []
                for argument in args:
                    token = tokens.get(id(argument))
                    parts.append(token if token is not None and token() is argument else argument)
                key = tuple(parts)  # an argument that needs a token it lacks matches no stored key: a miss
            value = data.pop(key, _MISSING) if bounded else data.get(key, _MISSING)
            if value is not _MISSING:
                if bounded:
                    data[key] = value  # now the most recently used
                counts._hits += 1
                return value
            key = key_of(args, kwargs)  # every argument held weakly now has its token
            value = function(*args, **kwargs)  # no lock held: it may call this cache again
            store(key, value)
            return value

        return call

    def _key(self, args: tuple, kwargs: dict) -> tuple:
        """The key ``lru_cache`` would make (keyword arguments in call order after a mark; with ``typed``,
        every argument's type), each argument a dict finds by identity replaced by its token."""
        key = [self._token(argument) if _weakly(argument) else argument for argument in args]
        if kwargs:
            key.append(_KEYWORDS)
            for name, argument in kwargs.items():
                key += (name, self._token(argument) if _weakly(argument) else argument)
        if self._typed:
            key.extend(type(argument) for argument in (*args, *kwargs.values()))
        return tuple(key)

    def _token(self, argument: Any) -> _Token:
        token = _Token(argument, self._forget)
        token.key_id, token.keys = id(argument), set()
        with self._lock:
            current = self._tokens.get(token.key_id)
            if current is not None and current() is argument:
                return current
            self._tokens[token.key_id] = token
        return token

    def _store(self, key: tuple, value: Any) -> None:
        """Insert a computed result and evict the least recently used entries. A hit moves its entry (pop,
        then insert) without the lock: an entry missing here is being moved, and is not evicted."""
        with self._lock:
            self._misses += 1
            data = self._data
            if self._maxsize == 0 or key in data:  # no cache; or another thread stored it meanwhile
                return
            data[key] = value
            self._tag(key, set.add)
            while self._maxsize is not None and len(data) > self._maxsize:
                oldest = next(iter(data))
                if data.pop(oldest, _MISSING) is not _MISSING:
                    self._tag(oldest, set.discard)

    @staticmethod
    def _tag(key: tuple, change: Callable[[set, tuple], None]) -> None:
        """Record in (or remove from) each token of ``key`` that ``key`` holds it."""
        for part in key:
            if type(part) is _Token:
                change(part.keys, key)

    # --- lru_cache's surface ---

    def cache_info(self) -> CacheInfo:
        """The function cache's counts plus every live instance's: ``maxsize`` is per instance on methods."""
        with self._lock:
            hits, misses, size = self._hits, self._misses, len(self._data)
            for cached in list(self._instances):
                info = cached.cache_info()
                hits, misses, size = hits + info.hits, misses + info.misses, size + info.currsize
        return CacheInfo(hits, misses, self._maxsize, size)

    def cache_clear(self) -> None:
        """Empty the function cache and every instance's cache."""
        with self._lock:
            for token in self._tokens.values():
                token.keys.clear()
            self._data.clear()
            self._tokens.clear()
            self._hits = self._misses = 0
            for cached in list(self._instances):
                cached.cache_clear()

    def cache_parameters(self) -> dict[str, Any]:
        return {"maxsize": self._maxsize, "typed": self._typed}

    def __reduce__(self) -> str:
        return self.__qualname__  # pickled by name, as a function (and lru_cache) is

    def __copy__(self) -> _WeakLruCache:
        return self

    def __deepcopy__(self, memo: dict) -> _WeakLruCache:
        return self


class _SharedWeakLruCache(_WeakLruCache):
    """A method's calls all in the function cache, ``self`` held weakly as every identity-keyed argument."""

    __slots__ = ()

    def __get__(self, instance: Any, owner: Optional[type] = None) -> Any:
        return self if instance is None else MethodType(self._call, instance)


def weak_lru_cache(maxsize: Any = 128, typed: bool = False) -> Any:
    """``functools.lru_cache`` that never keeps a module, parameter or tensor argument (or ``self``) alive.

    Used as ``@weak_lru_cache``, ``@weak_lru_cache()``, ``@weak_lru_cache(None)`` or
    ``@weak_lru_cache(maxsize=32, typed=True)``, as ``lru_cache`` is. On methods ``maxsize`` is per instance.
    """
    return _decorator(maxsize, typed, _WeakLruCache)


def weak_cache(function: Callable[..., Any]) -> Any:
    """``functools.cache`` (an unbounded cache) that never keeps a module, parameter or tensor argument alive."""
    return _decorated(function, None, False, _WeakLruCache)


def weak_shared_lru_cache(maxsize: Any = 128, typed: bool = False) -> Any:
    """``weak_lru_cache`` whose methods keep one cache for every instance, as ``lru_cache`` does, with
    ``self`` held weakly like every module or tensor argument: for a long-lived object cached on modules."""
    return _decorator(maxsize, typed, _SharedWeakLruCache)


def weak_shared_cache(function: Callable[..., Any]) -> Any:
    """``weak_cache`` whose methods keep one cache for every instance (see ``weak_shared_lru_cache``)."""
    return _decorated(function, None, False, _SharedWeakLruCache)


def _decorator(maxsize: Any, typed: bool, kind: type[_WeakLruCache]) -> Any:
    """``lru_cache``'s argument handling: used bare, ``maxsize`` is the function."""
    if callable(maxsize) and isinstance(typed, bool):  # @weak_lru_cache, without parentheses
        return _decorated(maxsize, 128, typed, kind)
    if isinstance(maxsize, int):
        maxsize = max(maxsize, 0)
    elif maxsize is not None:
        raise TypeError("Expected first argument to be an integer, a callable, or None")
    return functools.partial(_decorated, maxsize=maxsize, typed=typed, kind=kind)


def _decorated(function: Callable[..., Any], maxsize: Optional[int], typed: bool, kind: type[_WeakLruCache]) -> Any:
    """A function defined in a class body (``Class.method``) gets the descriptor, which caches per instance
    (or, shared, binds the function cache); any other gets the function cache's own closure."""
    cache = kind(function, maxsize, typed)
    owner = getattr(function, "__qualname__", "").rpartition(".")[0]
    return cache if owner and not owner.endswith("<locals>") else cache._call
