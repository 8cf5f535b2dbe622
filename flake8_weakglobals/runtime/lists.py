"""WeakIdList: the list it replaces, except that an element goes when it is collected.

Elements are held as ``core`` decides: a module, parameter or tensor weakly, every other element as a list
holds it. Order and duplicates are kept. ``in``, ``index``, ``count``, ``remove`` and ``==`` search as the
list does: each element is the one sought if it is that object or compares equal to it (the element's
``==`` first), so equal one-element tensors match and multi-element ones raise as they did. Iteration is
the list's too: an iterator reads the list as it is at each step, so it sees what is appended meanwhile and
skips the element after one removed before it.

How: a plain list holds the strong elements and, for each weakly held object, one ``_Ref`` (shared by its
duplicates). When an object dies its callback only marks the list; the next operation drops the dead refs
in one pass, so positions are always those of the live elements, and a model whose thousands of parameters
die together costs one pass, not one per parameter. The iterators open at that moment are moved with the
elements they stand before, so a death never makes one skip or repeat. Slicing, ``+`` and ``*`` give plain
lists, as they did; errors are the list's own (same types, same messages).
"""
from __future__ import annotations

import sys
import threading
import weakref
from collections.abc import Iterable, Iterator, MutableSequence
from copy import deepcopy
from itertools import accumulate, compress
from reprlib import recursive_repr
from typing import Any, Optional, TypeVar, Union, overload

from .core import _MISSING, _class_kind, _classify, _revived

_T = TypeVar("_T")
__all__ = ["WeakIdList"]


class _Ref(weakref.ref):
    """The list's reference to a weakly held object, with the object's id; compared by identity only."""

    __slots__ = ("key_id",)
    __hash__ = object.__hash__
    __eq__ = object.__eq__
    __ne__ = object.__ne__


def _held(slot: Any) -> Any:
    """The element a slot stands for, held strongly; ``_MISSING`` for a ref whose object just died."""
    if type(slot) is not _Ref:
        return slot
    element = slot()
    return _MISSING if element is None else _revived(element)


class _Iterator(Iterator[_T]):
    """The list's own iterator: a position in the list, read afresh at each step (forwards, or backwards
    for ``reversed``), that lets go of the list once it has run off its end, as a list iterator does.
    When dead refs are dropped, the list moves it to the same element (``moved``)."""

    __slots__ = ("_list", "_position", "_step", "__weakref__")

    def __init__(self, of: WeakIdList[_T], position: int, step: int) -> None:
        self._list: Optional[WeakIdList[_T]] = of
        self._position = position
        self._step = step
        of._iterators.add(self)

    def __next__(self) -> _T:
        of = self._list
        while of is not None:
            data = of._live()
            if not 0 <= self._position < len(data):
                break
            element = _held(data[self._position])
            self._position += self._step
            if element is not _MISSING:
                return element  # type: ignore[no-any-return]
        self._list = None
        raise StopIteration

    def moved(self, before: list[int]) -> None:
        """The list is about to keep only its live slots; ``before[i]`` of them come before slot ``i``."""
        end = len(before) - 1
        if self._step > 0:
            self._position = before[min(self._position, end)] + max(self._position - end, 0)
        elif self._position < end:
            self._position = before[self._position + 1] - 1  # the last live slot at or before it (-1: none)
        else:  # past the end, as a reversed list iterator stops: still past it
            self._position -= end - before[end]

    def __length_hint__(self) -> int:
        of = self._list
        if of is None:
            return 0
        return max(len(of) - self._position, 0) if self._step > 0 else max(min(self._position + 1, len(of)), 0)


class WeakIdList(MutableSequence[_T]):
    """A list whose identity-keyed elements are held weakly (see the module docstring)."""

    __slots__ = ("_data", "_refs", "_dead", "_lock", "_remove", "_iterators", "__weakref__")

    def __init__(self, elements: Iterable[_T] = (), /) -> None:
        self._data: list[Any] = []  # strong elements and ``_Ref``s, in order
        self._refs: dict[int, _Ref] = {}  # id(object) -> its one ``_Ref``
        self._dead = False  # a ``_Ref`` in ``_data`` may be dead: drop them before the next use
        self._lock = threading.RLock()  # mutations and the drop of dead refs, never a read
        self._iterators: weakref.WeakSet[_Iterator] = weakref.WeakSet()  # open ones, moved when dead refs go

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
                    alive = [type(slot) is not _Ref or slot() is not None for slot in self._data]
                    if self._iterators:
                        before = list(accumulate(alive, initial=0))  # live slots before each position
                        for iterator in list(self._iterators):
                            iterator.moved(before)
                    self._data[:] = compress(self._data, alive)
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

    @staticmethod
    def _elements(slots: Iterable[Any]) -> Iterator[Any]:
        """The live elements of ``slots`` (one may have died since the last drop of dead refs)."""
        return (element for element in map(_held, slots) if element is not _MISSING)

    def _find(self, element: Any, start: int = 0, stop: int = sys.maxsize) -> int:
        """The first position in ``[start:stop]`` whose element is ``element`` or equal to it, compared as
        the list compares (the element's ``==`` first, its truth taken); -1 if none. The elements are held
        while they are compared, so none dies meanwhile and positions stay those of the live list."""
        held = list(map(_held, self._live()))
        begin, end, _ = slice(start, stop).indices(len(held))
        for position in range(begin, end):
            item = held[position]
            if item is not _MISSING and (item is element or item == element):
                return position
        return -1

    # --- reading ---

    def __len__(self) -> int:
        return len(self._live())

    def __iter__(self) -> Iterator[_T]:
        return _Iterator(self, 0, 1)

    def __reversed__(self) -> Iterator[_T]:
        return _Iterator(self, len(self) - 1, -1)

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
        return self._find(element) >= 0

    def index(self, element: Any, start: int = 0, stop: int = sys.maxsize) -> int:
        try:
            [].index(_MISSING, start, stop)  # the list's own TypeError for a start or stop that is no index
        except ValueError:
            pass
        position = self._find(element, start, stop)
        return position if position >= 0 else [].index(element)  # raises the list's own ValueError

    def count(self, element: Any) -> int:
        return sum(1 for item in map(_held, self._live()) if item is not _MISSING and (item is element or item == element))

    def __eq__(self, other: object) -> Any:
        """As a list's ``==``: only with a list (or another ``WeakIdList``), element by element."""
        return self[:] == list(other) if isinstance(other, (list, WeakIdList)) else NotImplemented  # type: ignore[arg-type]

    def __ne__(self, other: object) -> Any:
        return self[:] != list(other) if isinstance(other, (list, WeakIdList)) else NotImplemented  # type: ignore[arg-type]

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
                elements = iter(value)
            except TypeError:
                elements = None  # not iterable: the list raises its own error for it
            # an error the iteration raises propagates, and the list is left as it was, as a list's is
            slots: Any = value if elements is None else [self._slot(element) for element in elements]
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
        with self._lock:
            position = self._find(element)
            if position < 0:
                [].remove(element)  # raises the list's own ValueError
            del self._data[position]  # a death meanwhile only marks the list: the position still holds

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
        del self[:]  # empty while it sorts, as a list is: a key function that reads it sees it so
        try:
            elements.sort(key=key, reverse=reverse)  # compares as the list's sort did (tensors elementwise)
        finally:
            added = len(self) > 0  # a key added to it: a list drops that, keeps what it sorted, and raises
            self[:] = elements
        if added:
            raise ValueError("list modified during sort")

    def copy(self) -> WeakIdList[_T]:
        return type(self)(self)

    __copy__ = copy

    def __deepcopy__(self, memo: dict) -> WeakIdList[_T]:
        result: WeakIdList[_T] = type(self)()
        memo[id(self)] = result
        result.extend(deepcopy(element, memo) for element in self)
        return result

    def __reduce_ex__(self, protocol: Any) -> Any:  # pickled as the list it replaced, which a load gives back
        return (list, (self[:],))

    def __format__(self, spec: str) -> str:  # ``f"{s:>8}"`` raises as the list's does, naming ``list``
        return format(list(self), spec)

    @recursive_repr("[...]")
    def __repr__(self) -> str:
        return repr(self[:])
