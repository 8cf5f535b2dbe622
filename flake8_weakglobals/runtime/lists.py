"""WeakIdList: the list it replaces, except that an element goes when it is collected.

Elements are held as ``core`` decides: a module, parameter or tensor weakly, every other element as a list
holds it. Order and duplicates are kept. An element held weakly matches only itself: ``in``, ``index``,
``count``, ``remove`` and ``==`` never call its ``==`` (where a list of tensors would compare them
elementwise and raise "Boolean value of Tensor with more than one value is ambiguous", or call a
one-element tensor equal to a number); every other element is compared with ``==``, as by the list.

How: a plain list holds the strong elements and, for each weakly held object, one ``_Ref`` (shared by its
duplicates, so ``in`` and ``index`` are the list's own C loops over the refs). When an object dies its
callback only marks the list; the next operation drops the dead refs in one pass, so positions are always
those of the live elements, and a model whose thousands of parameters die together costs one pass, not one
per parameter. Slicing, ``+`` and ``*`` give plain lists, as they did; errors are the list's own (same
types, same messages: a missing weakly held element raises what ``[].index(x)`` raises).
"""
from __future__ import annotations

import sys
import threading
import weakref
from collections.abc import Iterable, Iterator, MutableSequence
from copy import deepcopy
from reprlib import recursive_repr
from typing import Any, Optional, TypeVar, Union, overload

from .core import _MISSING, _class_kind, _classify, _revived, _weakly

_T = TypeVar("_T")
__all__ = ["WeakIdList"]


class _Ref(weakref.ref):
    """The list's reference to a weakly held object, with the object's id; compared by identity only."""

    __slots__ = ("key_id",)
    __hash__ = object.__hash__
    __eq__ = object.__eq__
    __ne__ = object.__ne__


class WeakIdList(MutableSequence[_T]):
    """A list whose identity-keyed elements are held weakly (see the module docstring)."""

    __slots__ = ("_data", "_refs", "_dead", "_lock", "_remove", "__weakref__")

    def __init__(self, elements: Iterable[_T] = (), /) -> None:
        self._data: list[Any] = []  # strong elements and ``_Ref``s, in order
        self._refs: dict[int, _Ref] = {}  # id(object) -> its one ``_Ref``
        self._dead = False  # a ``_Ref`` in ``_data`` may be dead: drop them before the next use
        self._lock = threading.RLock()  # mutations and the drop of dead refs, never a read

        def remove(ref: _Ref, selfref: weakref.ref = weakref.ref(self)) -> None:
            """Runs in whatever thread frees the object: it only marks the list."""
            store = selfref()
            if store is not None:
                if store._refs.get(ref.key_id) is ref:
                    del store._refs[ref.key_id]
                store._dead = True

        self._remove = remove
        self.extend(elements)

    def _live(self) -> list[Any]:
        """``_data`` without dead refs (one pass, only after a collection)."""
        if self._dead:
            with self._lock:
                if self._dead:
                    self._dead = False  # a death during the pass marks the list again
                    self._data[:] = [slot for slot in self._data if type(slot) is not _Ref or slot() is not None]
        return self._data

    def _slot(self, element: Any) -> Any:
        """What the list stores for ``element``: itself, or its object's one ``_Ref``."""
        weakly = _class_kind(id(type(element)))
        if not (weakly or (weakly is None and _classify(element))):
            return element
        ref = self._refs.get(id(element))
        if ref is None or ref() is not element:
            ref = self._refs[id(element)] = _Ref(element, self._remove)
            ref.key_id = id(element)
        return ref

    def _probe(self, element: Any) -> Any:
        """What to look for in ``_data`` to find ``element``; ``_MISSING`` for a weakly held one not there."""
        if not _weakly(element):
            return element
        ref = self._refs.get(id(element))
        return ref if ref is not None and ref() is element else _MISSING

    @staticmethod
    def _elements(slots: Iterable[Any]) -> Iterator[Any]:
        """The live elements of ``slots``."""
        for slot in slots:
            if type(slot) is not _Ref:
                yield slot
                continue
            element = slot()
            if element is not None:  # else it died after the last drop of dead refs
                yield _revived(element)

    # --- reading ---

    def __len__(self) -> int:
        return len(self._live())

    def __iter__(self) -> Iterator[_T]:
        return self._elements(list(self._live()))  # a snapshot: changes and deaths mid-loop never raise

    def __reversed__(self) -> Iterator[_T]:
        return reversed(self[:])

    @overload
    def __getitem__(self, index: int) -> _T: ...

    @overload
    def __getitem__(self, index: slice) -> list[_T]: ...

    def __getitem__(self, index: Union[int, slice]) -> Any:
        """An element; for a slice, a plain list (what slicing the list gave)."""
        slots = self._live()[index]
        if isinstance(index, slice):
            return list(self._elements(slots))
        return next(self._elements((slots,)), None)

    def __contains__(self, element: object) -> bool:
        probe = self._probe(element)
        return probe is not _MISSING and probe in self._live()

    def index(self, element: Any, start: int = 0, stop: int = sys.maxsize) -> int:
        probe = self._probe(element)
        if probe is not _MISSING:
            try:
                return self._live().index(probe, start, stop)
            except ValueError:
                pass
        return [].index(element, start, stop)  # raises the list's own ValueError (or TypeError) for ``element``

    def count(self, element: Any) -> int:
        probe = self._probe(element)
        return 0 if probe is _MISSING else self._live().count(probe)

    def __eq__(self, other: object) -> Any:
        """As a list's ``==``: only with a list (or another ``WeakIdList``), element by element; an element
        held weakly equals only itself."""
        if not isinstance(other, (list, WeakIdList)):
            return NotImplemented
        mine, theirs = self[:], list(other)
        return len(mine) == len(theirs) and all(
            a is b or (not _weakly(a) and not _weakly(b) and a == b) for a, b in zip(mine, theirs)
        )

    def __ne__(self, other: object) -> Any:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]

    # ``<``, ``<=``, ``>``, ``>=``: the list's own, on the live elements, with a list or another WeakIdList
    # (``[] < registry`` comes here reflected); anything else is NotImplemented, so Python raises the
    # TypeError the list raised.

    def __lt__(self, other: object) -> Any:
        return self[:] < list(other) if isinstance(other, (list, WeakIdList)) else NotImplemented  # type: ignore[arg-type]

    def __le__(self, other: object) -> Any:
        return self[:] <= list(other) if isinstance(other, (list, WeakIdList)) else NotImplemented  # type: ignore[arg-type]

    def __gt__(self, other: object) -> Any:
        return self[:] > list(other) if isinstance(other, (list, WeakIdList)) else NotImplemented  # type: ignore[arg-type]

    def __ge__(self, other: object) -> Any:
        return self[:] >= list(other) if isinstance(other, (list, WeakIdList)) else NotImplemented  # type: ignore[arg-type]

    def __add__(self, other: Any) -> Any:
        return self[:] + other

    def __radd__(self, other: Any) -> Any:
        return other + self[:]

    def __mul__(self, times: Any) -> Any:
        return self[:] * times

    __rmul__ = __mul__

    # --- changing ---

    def __setitem__(self, index: Union[int, slice], value: Any) -> None:
        if isinstance(index, slice):
            try:
                slots: Any = [self._slot(element) for element in value]
            except TypeError:
                slots = value  # not iterable: the list raises its own error for it
        else:
            slots = self._slot(value)
        with self._lock:
            self._live()[index] = slots

    def __delitem__(self, index: Union[int, slice]) -> None:
        with self._lock:
            del self._live()[index]

    def insert(self, index: int, element: _T) -> None:
        with self._lock:
            self._live().insert(index, self._slot(element))

    def append(self, element: _T) -> None:
        with self._lock:
            self._data.append(self._slot(element))

    def extend(self, elements: Iterable[_T]) -> None:
        """Element by element, as ``list.extend`` does (those before an error are kept)."""
        for element in list(elements) if elements is self else elements:
            self.append(element)

    def __iadd__(self, elements: Iterable[_T]) -> WeakIdList[_T]:
        self.extend(elements)
        return self

    def __imul__(self, times: Any) -> WeakIdList[_T]:
        with self._lock:
            self._live()[:] = self._data * times
        return self

    def pop(self, index: int = -1) -> _T:
        with self._lock:
            while True:
                for element in self._elements((self._live().pop(index),)):
                    return element  # type: ignore[no-any-return]
                # it died just now: as if it had been collected before the call


    def remove(self, element: _T) -> None:
        probe = self._probe(element)
        with self._lock:
            if probe is not _MISSING:
                data = self._live()
                try:
                    del data[data.index(probe)]
                    return
                except ValueError:
                    pass
            [].remove(element)  # raises the list's own ValueError

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._refs.clear()
            self._dead = False

    def reverse(self) -> None:
        with self._lock:
            self._live().reverse()

    def sort(self, *, key: Optional[Any] = None, reverse: bool = False) -> None:
        elements = self[:]
        elements.sort(key=key, reverse=reverse)  # compares as the list's sort did (tensors elementwise)
        self[:] = elements

    def copy(self) -> WeakIdList[_T]:
        return type(self)(self)

    __copy__ = copy

    def __deepcopy__(self, memo: dict) -> WeakIdList[_T]:
        result: WeakIdList[_T] = type(self)()
        memo[id(self)] = result
        result.extend(deepcopy(element, memo) for element in self)
        return result

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise TypeError(f"cannot pickle {type(self).__name__}: its elements are weak references to live objects")

    @recursive_repr("[...]")
    def __repr__(self) -> str:
        return repr(self[:])
