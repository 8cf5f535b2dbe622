"""WeakIdSet: the set it replaces, except that an element goes when it is collected.

Elements are held as ``core`` decides: a module, parameter or tensor weakly, by identity (never compared
with ``==``), every other element as a set holds it.

Why a real ``set`` inside: the set holds the strong elements themselves and, for each weakly held element,
a ``_Member`` that hashes as its element. The table is then laid out as the program's set was, through the
same adds and discards, so iteration order, ``repr`` and ``pop()`` are the built-in set's own (not merely
"the same elements").

Every operator gives what it gave with the set: ``| & - ^``, ``== != <= < >= >`` are computed on a plain
set of the live elements, so Python picks the same method of the same operand (``frozenset | s`` is a
``frozenset``), with the same result, and the same error message when the set is the left operand. A
result is a plain, strong set, so nothing in it vanishes because only the result held it. ``|= &= -= ^=``
change the set in place where the set's did (a set or frozenset on the right), and otherwise do what
the set's did (``s |= d.keys()`` rebinds to a new plain set, ``s |= [1]`` raises the set's TypeError).
"""
from __future__ import annotations

import operator
import weakref
from collections.abc import Iterable, Iterator, MutableSet
from copy import deepcopy
from typing import Any, TypeVar

from .core import _class_kind, _classify, _on_plain, _revived, _weakly

_K = TypeVar("_K")
__all__ = ["StrictWeakIdSet", "WeakIdSet"]


class _Member(weakref.ref):
    """A weakly held element as the set holds it: hashes as its element (``weakref.ref``'s hash, computed
    when it is added, while the element lives), compares by identity (a tensor's ``==`` is never called).
    A lookup finds it by ``id`` and tests that it is live by its ``__callback__`` (see ``maps._Entry``)."""

    __slots__ = ("key_id",)
    __hash__ = weakref.ref.__hash__
    __eq__ = object.__eq__
    __ne__ = object.__ne__


class WeakIdSet(MutableSet[_K]):
    """A set whose identity-keyed elements are held weakly (see the module docstring)."""

    __slots__ = ("_data", "_members", "_remove", "__weakref__")
    _strict = False  # ``StrictWeakIdSet``: as ``WeakSet``, take only what can be weakly referenced

    def __init__(self, elements: Iterable[_K] = (), /) -> None:
        self._data: set[Any] = set()  # strong elements, and one ``_Member`` per weakly held element
        self._members: dict[int, _Member] = {}  # id(element) -> its ``_Member``

        def remove(member: _Member, selfref: weakref.ref = weakref.ref(self)) -> None:
            store = selfref()
            if store is not None and store._members.get(member.key_id) is member:
                del store._members[member.key_id]
                store._data.discard(member)

        self._remove = remove
        self.update(elements)

    def _strong(self, element: Any) -> Any:
        """An element held by equality; a strict set refuses, as ``WeakSet`` does, what cannot be weakly
        referenced (``TypeError``)."""
        if self._strict:
            weakref.ref(element)
        return element

    def __contains__(self, element: object) -> bool:
        member = self._members.get(id(element))
        if member is not None and member.__callback__ is not None:
            return True
        weakly = _class_kind(id(type(element)))
        if weakly or (weakly is None and _classify(element)):
            return False
        if self._strict:
            try:
                weakref.ref(element)
            except TypeError:  # what ``WeakSet`` cannot hold, its ``in`` says it does not
                return False
        return element in self._data  # a set's own ``in``: an unhashable set is looked up as a frozenset

    def add(self, element: _K) -> None:
        member = self._members.get(id(element))
        if member is not None and member.__callback__ is not None:
            return
        weakly = _class_kind(id(type(element)))
        if not (weakly or (weakly is None and _classify(element))):
            self._data.add(self._strong(element))
            return
        new = _Member(element, self._remove)
        new.key_id = id(element)
        self._data.add(new)  # in the table first, then claimed: a discard meanwhile finds it absent, as before the add
        found = self._members.setdefault(new.key_id, new)  # one step: of threads adding one element, one wins
        if found is not new:
            self._data.discard(found if found.__callback__ is None else new)  # a dead member goes; else ours
            if found.__callback__ is None:
                self._members[new.key_id] = new

    def discard(self, element: _K) -> None:
        member = self._members.pop(id(element), None)  # one step: of threads discarding one element, one does
        if member is not None:
            self._data.discard(member)
        if (member is None or member.__callback__ is None) and not _weakly(element):
            self._data.discard(self._strong(element))

    def remove(self, element: _K) -> None:
        if element not in self:
            raise KeyError(element)
        self.discard(element)

    def __iter__(self) -> Iterator[_K]:
        """The live elements, in the table's order, over a snapshot (elements dying mid-loop never raise)."""
        for slot in list(self._data):
            if type(slot) is _Member:
                element = slot()
                if element is not None:
                    yield _revived(element)
            else:
                yield slot

    def __len__(self) -> int:
        return len(self._data)

    def pop(self) -> _K:
        """The element the set's ``pop`` removes (the same table); ``KeyError`` when empty, as the set's."""
        while True:
            slot = self._data.pop()
            if type(slot) is not _Member:
                return slot  # type: ignore[no-any-return]
            if self._members.get(slot.key_id) is slot:
                del self._members[slot.key_id]
            element = slot()
            if element is not None:
                return _revived(element)  # type: ignore[no-any-return]

    def clear(self) -> None:
        self._data.clear()
        self._members.clear()

    def update(self, *iterables: Iterable[_K]) -> None:
        for iterable in iterables:
            for element in iterable:
                self.add(element)

    def _plain(self) -> set[_K]:
        """A plain set of the live elements: what operators are computed on."""
        return set(self)

    __or__, __ror__ = _on_plain(operator.or_), _on_plain(operator.or_, reflected=True)
    __and__, __rand__ = _on_plain(operator.and_), _on_plain(operator.and_, reflected=True)
    __sub__, __rsub__ = _on_plain(operator.sub), _on_plain(operator.sub, reflected=True)
    __xor__, __rxor__ = _on_plain(operator.xor), _on_plain(operator.xor, reflected=True)
    __format__ = _on_plain(format)  # ``f"{s:>8}"`` raises as the set's does, naming it
    # ``x <= s`` reaches ``s.__ge__``: computed as ``plain >= x``, the same answer, though an error names
    # the operator and operands the other way round.
    __eq__, __ne__ = _on_plain(operator.eq), _on_plain(operator.ne)
    __le__, __lt__ = _on_plain(operator.le), _on_plain(operator.lt)
    __ge__, __gt__ = _on_plain(operator.ge), _on_plain(operator.gt)
    __hash__ = None  # type: ignore[assignment]

    def _in_place(self, other: Any) -> bool:
        """Whether the set's in-place operator changes the set itself: only with a set on the right."""
        return isinstance(other, (set, frozenset, WeakIdSet))

    def __ior__(self, other: Any) -> Any:
        if not self._in_place(other):
            result = self._plain()
            result |= other
            return result
        self.update(other)
        return self

    def __iand__(self, other: Any) -> Any:
        if not self._in_place(other):
            result = self._plain()
            result &= other
            return result
        self.intersection_update(other)
        return self

    def __isub__(self, other: Any) -> Any:
        if not self._in_place(other):
            result = self._plain()
            result -= other
            return result
        self.difference_update(other)
        return self

    def __ixor__(self, other: Any) -> Any:
        if not self._in_place(other):
            result = self._plain()
            result ^= other
            return result
        self.symmetric_difference_update(other)
        return self

    # --- the set's methods: those that build a new set return a plain one ---

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

    def isdisjoint(self, other: Iterable[Any]) -> bool:
        return self._plain().isdisjoint(other)

    def intersection_update(self, *others: Iterable[Any]) -> None:
        """As the set's: its table becomes the intersection's, which holds the other's equal objects (``{1}
        & {True}`` is ``{True}``)."""
        kept = self._plain().intersection(*others)  # raises what the set's raises, before any change
        self.clear()
        self.update(kept)

    def difference_update(self, *others: Iterable[Any]) -> None:
        for other in others:
            for element in list(other) if other is self else other:
                self.discard(element)

    def symmetric_difference_update(self, other: Iterable[Any]) -> None:
        """As the set's: a dict's keys or a set walked as they are, any other iterable made a set first."""
        if other is self:
            self.clear()
            return
        elements = other if isinstance(other, (dict, set, frozenset, WeakIdSet)) else set(other)
        for element in list(elements):
            if element in self:
                self.discard(element)
            else:
                self.add(element)

    def copy(self) -> WeakIdSet[_K]:
        return type(self)(self)

    __copy__ = copy

    def __deepcopy__(self, memo: dict) -> WeakIdSet[_K]:
        result: WeakIdSet[_K] = type(self)()
        memo[id(self)] = result
        result.update(element if self._strict else deepcopy(element, memo) for element in self)
        return result

    def __reduce_ex__(self, protocol: Any) -> Any:  # pickled as the set it replaced, which a load gives back
        return (set, (list(self),))

    def __repr__(self) -> str:
        elements = list(self)  # in the table's order, which a plain set of them may not keep
        return "{" + ", ".join(map(repr, elements)) + "}" if elements else "set()"


class StrictWeakIdSet(WeakIdSet[_K]):
    """The fix of a ``weakref.WeakSet``: its elements compared by identity, never with ``==`` (which raises
    for tensors), and otherwise its promises: an element that cannot be weakly referenced raises
    ``TypeError`` (``in`` is False), and ``deepcopy`` shares the elements."""

    __slots__ = ()
    _strict = True
