"""The runtime's contract, black's promise for a rewrite: the same operations give the same results, call
counts and exceptions on the built-in container (``dict``, ``set``, ``list``, ``functools.lru_cache``) and
on the runtime's (``WeakIdMap``, ``WeakValueMap``, ``WeakIdSet``, ``WeakIdList``, ``weak_lru_cache``/``weak_cache``), except
for the entries of objects that were collected.

Each machine runs two worlds side by side: the built-in one and the runtime's, each with its own twin of
every module and tensor (a built-in container keeps its twins alive, so a key can only die in the runtime's
world). Values that never die (numbers, strings, ``None``, tuples, a NaN float) are shared. Results are
compared after naming every twin by its label; an exception by its type and message. Dropping a label
drops the runtime world's last reference to its object and collects; the built-in world then forgets the
same entries (what the runtime may lack), and nothing else may differ. For ``lru_cache``, whose entries
cannot be removed, a model of its LRU order (checked against its own ``cache_info``) says which of its
entries hold a dropped label.

The machines run on the installed runtime, on each part as ``python -m fixes.apply`` vendors it alone, and
on the code it inlines into a module that uses that part's name alone (run as that module's code is run).
"""
from __future__ import annotations

import functools
import gc
import itertools
import importlib.util
import sys
from collections import Counter, OrderedDict, defaultdict
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Optional

import pytest
import torch
from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from torch import nn

import flake8_weakglobals.runtime as installed
from fixes.inline_code import inline_code
from fixes.vendor import vendored_text

#: The same runs on every machine and every run: derandomized, no example database to replay from, and no
#: health check that times how long drawing took. Every rule's precondition reads the labels alone, never
#: an order that follows addresses, so a replayed draw takes the same rules (no FlakyStrategyDefinition).
SETTINGS = settings(
    max_examples=25, stateful_step_count=30, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


class Plain:
    """A plain object (held weakly, by identity) that prints as its label."""

    def __init__(self, label: str) -> None:
        self.label = label

    def __repr__(self) -> str:
        return f"Plain({self.label})"


#: Objects held weakly: a twin per world. Tensors of one element, of several, NaN; modules; plain objects.
WEAK = {
    "module": lambda label: nn.Linear(1, 1),
    "identity": lambda label: nn.Identity(),
    "scalar": lambda label: torch.tensor(1.0),
    "vector": lambda label: torch.zeros(3),
    "nan": lambda label: torch.tensor(float("nan")),
    "parameter": lambda label: nn.Parameter(torch.ones(2)),
    "plain": Plain,
}
NAN = float("nan")
#: Values shared by both worlds (equal across kinds where Python says so: 1 == True == 1.0).
STRONG = [1, True, 1.0, 2, "name", None, ("a", 1), NAN, frozenset({1})]


class World:
    """One side: its twin of every label, and how to name what it returns."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.objects: dict[str, Any] = {}
        self.labels: dict[int, str] = {}

    def add(self, label: str, obj: Any) -> None:
        self.objects[label] = obj
        self.labels[id(obj)] = label

    def drop(self, label: str) -> None:
        obj = self.objects.pop(label)
        del self.labels[id(obj)]

    def norm(self, value: Any) -> Any:
        """``value`` with every twin replaced by its label, in a form equal across worlds."""
        if id(value) in self.labels:
            return ("obj", self.labels[id(value)])
        if isinstance(value, float) and value != value:
            return ("nan",)
        runtime_class = type(value).__name__.lstrip("_")  # inlined, ``WeakIdMap`` is ``_WeakIdMap``
        if isinstance(value, (dict, installed.WeakIdMap)) or runtime_class in ("WeakIdMap", "WeakValueMap"):
            factory = getattr(value, "default_factory", None)
            kind = type(value).__name__ if isinstance(value, dict) else ("defaultdict" if factory else "dict")
            return (kind, getattr(factory, "__name__", None), [(self.norm(k), self.norm(v)) for k, v in value.items()])
        if isinstance(value, (set, frozenset)) or runtime_class in ("WeakIdSet", "StrictWeakIdSet"):
            kind = type(value).__name__ if isinstance(value, (set, frozenset)) else "set"
            return (kind, sorted((self.norm(element) for element in value), key=repr))
        if isinstance(value, (list, tuple)) or runtime_class == "WeakIdList":
            kind = type(value).__name__ if isinstance(value, (list, tuple)) else "list"
            return (kind, [self.norm(element) for element in value])
        if isinstance(value, (torch.Tensor, nn.Module)):
            raise AssertionError(f"an object without a label came back: {value!r}")
        return (type(value).__name__, value)

    def outcome(self, action: Callable[[], Any]) -> Any:
        try:
            return self.norm(action())
        except Exception as error:  # what the program would have seen
            return ("raises", type(error).__name__, str(error))


class _TwoWorlds(RuleBasedStateMachine):
    """Labels, twins, and one step run in both worlds."""

    def __init__(self) -> None:
        super().__init__()
        gc.freeze()  # a collection then scans this run's objects only, not all of torch
        self.ref, self.sub = World("built-in"), World("runtime")
        self.live: list[str] = []  # weak labels both worlds still have
        self.count = 0

    def teardown(self) -> None:
        gc.unfreeze()

    def key(self, index: int) -> str:
        return self.live[index % len(self.live)]

    def value(self, world: World, choice: int) -> Any:
        """A key or element: a weak label's twin (while there are some) or a shared strong value."""
        if self.live and choice % 3:
            return world.objects[self.key(choice)]
        return STRONG[choice % len(STRONG)]

    @rule(kind=st.sampled_from(sorted(WEAK)))
    def new_object(self, kind: str) -> None:
        self.count += 1
        label = f"{kind}{self.count}"
        for world in (self.ref, self.sub):
            world.add(label, WEAK[kind](label))
        self.live.append(label)

    def both(self, action: Callable[[World], Any]) -> Any:
        """Run ``action`` in each world; the two outcomes must be equal."""
        expected = self.ref.outcome(lambda: action(self.ref))
        got = self.sub.outcome(lambda: action(self.sub))
        assert got == expected, f"{got!r} != {expected!r}"
        return got

    @precondition(lambda self: self.live)
    @rule(index=st.integers(0, 50))
    def drop(self, index: int) -> None:
        """The runtime world's object dies; the built-in world forgets what the runtime may lack."""
        label = self.key(index)
        self.live.remove(label)
        twin = self.ref.objects[label]
        self.forget(twin)
        self.ref.drop(label)
        self.sub.drop(label)
        gc.collect()

    def forget(self, twin: Any) -> None:
        raise NotImplementedError


def other_mapping(world: World, kind: str, pairs: list[tuple[Any, int]]) -> Any:
    made: Any = {"dict": dict, "defaultdict": lambda: defaultdict(int), "OrderedDict": OrderedDict, "Counter": Counter}[kind]()
    for key, value in pairs:
        made[key] = value
    return made


MAPPINGS = ["dict", "defaultdict", "OrderedDict", "Counter"]
pairs_strategy = st.lists(st.tuples(st.integers(0, 50), st.integers(0, 50)), max_size=4)


def map_machine(runtime: ModuleType, factory: Optional[Callable[[], int]], weak_values: bool = False) -> type:
    class MapContract(_TwoWorlds):
        """``dict`` (``defaultdict(int)``) against ``WeakIdMap`` (with ``default_factory=int``), or, with
        ``weak_values``, against ``WeakValueMap``: keyed by the shared strong values, holding the twins."""

        def __init__(self) -> None:
            super().__init__()
            self.ref.container = {} if factory is None else defaultdict(factory)
            self.sub.container = (runtime.WeakValueMap if weak_values else runtime.WeakIdMap)(default_factory=factory)

        def forget(self, twin: Any) -> None:
            if weak_values:
                for key in [key for key, value in self.ref.container.items() if value is twin]:
                    del self.ref.container[key]
            else:
                self.ref.container.pop(twin, None)

        def slot(self, w: World, choice: int) -> Any:
            """A key: a twin or a strong value, or only strong values for ``WeakValueMap``."""
            return STRONG[choice % len(STRONG)] if weak_values else self.value(w, choice)

        def entry(self, w: World, choice: int) -> Any:
            """A value: a small number, or a twin or a strong value for ``WeakValueMap``."""
            return self.value(w, choice) if weak_values else choice % 4

        def pair(self, w: World, choice: int, value: int) -> tuple[Any, Any]:
            return self.slot(w, value if weak_values else choice), self.entry(w, choice if weak_values else value)

        def reflected(self, action: Callable[[World], Any]) -> None:
            """``other == m``: the dict on the left cannot compare with a map that is no dict, so Python asks
            the map, which compares the values of equal keys in its own order. Where two values raise when
            compared (tensors), a dict may have stopped first at another key whose values differ: only that
            may differ (``runtime/values.py``)."""
            expected = self.ref.outcome(lambda: action(self.ref))
            got = self.sub.outcome(lambda: action(self.sub))
            ambiguous = ("raises", "RuntimeError", "Boolean value of Tensor with more than one value is ambiguous")
            assert got == expected or (ambiguous in (got, expected) and {got[0], expected[0]} == {"raises", "bool"})

        @rule(choice=st.integers(0, 50), value=st.integers(0, 50))
        def set_item(self, choice: int, value: int) -> None:
            self.both(lambda w: w.container.__setitem__(self.slot(w, choice), self.entry(w, value)))

        @rule(choice=st.integers(0, 50))
        def read(self, choice: int) -> None:
            self.both(lambda w: w.container[self.slot(w, choice)])
            self.both(lambda w: w.container.get(self.slot(w, choice), "absent"))
            self.both(lambda w: self.slot(w, choice) in w.container)

        @rule(choice=st.integers(0, 50))
        def remove(self, choice: int) -> None:
            self.both(lambda w: w.container.pop(self.slot(w, choice)))
            self.both(lambda w: w.container.pop(self.slot(w, choice), "default"))
            self.both(lambda w: w.container.__delitem__(self.slot(w, choice)))
            self.both(lambda w: w.container.setdefault(self.slot(w, choice), 7))

        @rule()
        def pop_item(self) -> None:
            self.both(lambda w: w.container.popitem())

        @rule(kind=st.sampled_from(MAPPINGS), pairs=pairs_strategy, how=st.sampled_from(["update", "|=", "init"]))
        def update(self, kind: str, pairs: list[tuple[int, int]], how: str) -> None:
            def step(w: World) -> Any:
                other = other_mapping(w, kind, [self.pair(w, c, v) for c, v in pairs])
                if how == "update":
                    return w.container.update(other)
                if how == "init":
                    return type(w.container)(other) if factory is None else None
                container = w.container
                container |= other
                return container is w.container

            self.both(step)
            self.both(lambda w: w.container)

        @rule(bad=st.sampled_from([[1, 2], [(1, 2, 3)], 5, [(1, 2), "ab", "abc"], [[1]]]))
        def update_with_what_dict_update_refuses(self, bad: Any) -> None:
            self.both(lambda w: w.container.update(bad))
            self.both(lambda w: w.container)

        @rule(kind=st.sampled_from(MAPPINGS + ["list", "int"]), pairs=pairs_strategy, side=st.sampled_from(["left", "right"]))
        def operators(self, kind: str, pairs: list[tuple[int, int]], side: str) -> None:
            def other(w: World) -> Any:
                if kind == "list":
                    return [self.pair(w, c, v) for c, v in pairs]
                if kind == "int":
                    return 5
                return other_mapping(w, kind, [self.pair(w, c, v) for c, v in pairs])

            for operation in (lambda a, b: a | b, lambda a, b: a == b, lambda a, b: a != b):
                if side == "left":
                    self.both(lambda w: operation(w.container, other(w)))
                elif weak_values:
                    self.reflected(lambda w: operation(other(w), w.container))
                else:
                    self.both(lambda w: operation(other(w), w.container))

            def in_place(w: World) -> Any:
                target = other(w)
                if side == "left":
                    container = w.container
                    container |= target
                    return container is w.container
                target |= w.container
                return target

            if kind not in ("list", "int") or side == "left":
                self.both(in_place)

        @rule()
        def clear(self) -> None:
            self.both(lambda w: w.container.clear())

        @invariant()
        def same_contents(self) -> None:
            self.both(lambda w: w.container)
            self.both(lambda w: (len(w.container), list(reversed(w.container)), list(w.container.values())))
            self.both(lambda w: (list(w.container.keys()), list(w.container.items())))
            self.both(lambda w: w.container.copy())
            self.both(lambda w: repr(w.container).replace("WeakIdMap", "dict"))
            self.both(lambda w: (format(w.container, ""), format(w.container, ">8")))  # raises, naming dict
            self.both(lambda w: [dict(view.mapping) for view in (w.container.keys(), w.container.values(), w.container.items())])

    MapContract.TestCase.settings = SETTINGS
    return MapContract


SETS = ["set", "frozenset"]


def set_machine(runtime: ModuleType) -> type:
    class SetContract(_TwoWorlds):
        """``set`` against ``WeakIdSet``: every operator with a set or frozenset on either side."""

        def __init__(self) -> None:
            super().__init__()
            self.ref.container, self.sub.container = set(), runtime.WeakIdSet()

        def forget(self, twin: Any) -> None:
            self.ref.container.discard(twin)

        @rule(choice=st.integers(0, 50))
        def add(self, choice: int) -> None:
            self.both(lambda w: w.container.add(self.value(w, choice)))

        @rule(choice=st.integers(0, 50))
        def remove(self, choice: int) -> None:
            self.both(lambda w: self.value(w, choice) in w.container)
            self.both(lambda w: w.container.remove(self.value(w, choice)))
            self.both(lambda w: w.container.discard(self.value(w, choice)))

        @rule(probe=st.sampled_from([{1}, [1], {"name"}]))
        def unhashable_lookups(self, probe: Any) -> None:
            """A set is looked up as a frozenset (``{1} in s``); a list raises."""
            self.both(lambda w: probe in w.container)
            self.both(lambda w: w.container.discard(probe))

        @rule()
        def pop(self) -> None:
            """Which element ``pop`` takes follows the table's order (hashes are ids): only its effect is compared."""
            popped = self.sub.outcome(lambda: self.sub.container.pop())
            if popped[0] == "raises":
                assert self.ref.outcome(lambda: self.ref.container.pop()) == popped
            elif popped[0] == "obj":
                self.ref.container.discard(self.ref.objects[popped[1]])
            else:
                self.ref.container.discard(next(value for value in STRONG if self.ref.norm(value) == popped))

        @rule(
            kind=st.sampled_from(SETS + ["list"]),
            choices=st.lists(st.integers(0, 50), max_size=4),
            side=st.sampled_from(["left", "right"]),
        )
        def operators(self, kind: str, choices: list[int], side: str) -> None:
            def other(w: World) -> Any:
                elements = [self.value(w, choice) for choice in choices]
                return {"set": set, "frozenset": frozenset, "list": list}[kind](elements)

            operations = [
                lambda a, b: a | b, lambda a, b: a & b, lambda a, b: a - b, lambda a, b: a ^ b,
                lambda a, b: a <= b, lambda a, b: a < b, lambda a, b: a >= b, lambda a, b: a > b,
                lambda a, b: a == b, lambda a, b: a != b,
            ]
            for operation in operations:
                if side == "left":
                    self.both(lambda w: operation(w.container, other(w)))
                elif kind != "list":  # ``[1] <= s``: the runtime's error names the operands the other way round
                    self.both(lambda w: operation(other(w), w.container))
            for method in ("union", "intersection", "difference", "symmetric_difference", "issubset", "issuperset", "isdisjoint"):
                self.both(lambda w: getattr(w.container, method)(list(other(w))))

        @rule(
            kind=st.sampled_from(SETS + ["list"]),
            choices=st.lists(st.integers(0, 50), max_size=4),
            operator_name=st.sampled_from(["|=", "&=", "-=", "^="]),
            side=st.sampled_from(["left", "right"]),
        )
        def in_place(self, kind: str, choices: list[int], operator_name: str, side: str) -> None:
            import operator

            function = {"|=": operator.ior, "&=": operator.iand, "-=": operator.isub, "^=": operator.ixor}[operator_name]

            def step(w: World) -> Any:
                other = {"set": set, "frozenset": frozenset, "list": list}[kind](self.value(w, c) for c in choices)
                if side == "right":
                    return function(other, w.container)
                result = function(w.container, other)
                if result is not w.container:
                    return ("rebound", result)  # the set's in-place operator made a new set
                return "in place"

            if side == "right" and kind == "list":
                return
            self.both(step)

        @rule(choices=st.lists(st.integers(0, 50), max_size=3), method=st.sampled_from(
            ["update", "intersection_update", "difference_update", "symmetric_difference_update"]))
        def updates(self, choices: list[int], method: str) -> None:
            self.both(lambda w: getattr(w.container, method)([self.value(w, c) for c in choices]))

        @rule()
        def clear(self) -> None:
            self.both(lambda w: w.container.clear())

        @invariant()
        def same_contents(self) -> None:
            self.both(lambda w: (w.container, len(w.container), w.container.copy()))
            self.both(lambda w: format(w.container, ">8"))  # raises, naming set (an empty spec prints it: order aside)

    SetContract.TestCase.settings = SETTINGS
    return SetContract


def list_machine(runtime: ModuleType) -> type:
    class ListContract(_TwoWorlds):
        """``list`` against ``WeakIdList``: order, duplicates, the list's search (identity, then the element's
        ``==``: equal one-element tensors match, multi-element ones raise), and its live iteration."""

        def __init__(self) -> None:
            super().__init__()
            self.ref.container, self.sub.container = [], runtime.WeakIdList()

        def forget(self, twin: Any) -> None:
            self.ref.container[:] = [element for element in self.ref.container if element is not twin]

        def lookup(self, w: World, name: str, *arguments: Any) -> Any:
            """``in``, ``index``, ``count``, ``remove``: each world's own, errors included."""
            return getattr(w.container, name)(*arguments)

        @rule(choice=st.integers(0, 50), how=st.sampled_from(["append", "insert", "+=", "extend"]), at=st.integers(-4, 4))
        def add(self, choice: int, how: str, at: int) -> None:
            def step(w: World) -> Any:
                value = self.value(w, choice)
                if how == "append":
                    return w.container.append(value)
                if how == "insert":
                    return w.container.insert(at, value)
                if how == "extend":
                    return w.container.extend(iter([value, value]))
                container = w.container
                container += [value]
                return container is w.container

            self.both(step)

        @rule(choice=st.integers(0, 50), start=st.integers(-3, 3))
        def lookups(self, choice: int, start: int) -> None:
            self.both(lambda w: self.lookup(w, "__contains__", self.value(w, choice)))
            self.both(lambda w: self.lookup(w, "count", self.value(w, choice)))
            self.both(lambda w: self.lookup(w, "index", self.value(w, choice)))
            self.both(lambda w: self.lookup(w, "index", self.value(w, choice), start))
            self.both(lambda w: self.lookup(w, "remove", self.value(w, choice)))

        @rule(at=st.one_of(st.integers(-5, 5), st.just("x")))
        def by_index(self, at: Any) -> None:
            self.both(lambda w: w.container[at])
            self.both(lambda w: w.container.pop(at) if at != "x" else w.container.pop())

        @rule(start=st.one_of(st.none(), st.integers(-4, 4)), stop=st.one_of(st.none(), st.integers(-4, 4)),
              step=st.sampled_from([None, 1, 2, -1]), choices=st.lists(st.integers(0, 50), max_size=3))
        def slices(self, start: Optional[int], stop: Optional[int], step: Optional[int], choices: list[int]) -> None:
            part = slice(start, stop, step)
            self.both(lambda w: w.container[part])
            self.both(lambda w: w.container.__setitem__(part, [self.value(w, c) for c in choices]))
            self.both(lambda w: w.container.__delitem__(slice(start, stop)))
            self.both(lambda w: w.container.__setitem__(part, 5))

        @rule(choices=st.lists(st.integers(0, 50), max_size=3), fails_after=st.integers(0, 3))
        def slice_from_a_generator_that_raises(self, choices: list[int], fails_after: int) -> None:
            """``X[:] = (generator)`` whose generator raises midway: the error propagates and the list is as
            it was."""
            def step(w: World) -> Any:
                def elements() -> Any:
                    for position, choice in enumerate(choices):
                        if position == fails_after:
                            raise TypeError("a bad element")
                        yield self.value(w, choice)
                w.container[:] = elements()

            self.both(step)

        @rule(backwards=st.booleans())
        def sort_with_a_key_that_reads_the_list(self, backwards: bool) -> None:
            """``X.sort(key=...)``: a list is empty while it sorts, so a key that reads it sees no element."""
            def step(w: World) -> Any:
                seen: list[int] = []
                w.container.sort(key=lambda element: (seen.append(len(w.container)), 0)[1], reverse=backwards)
                return seen

            self.both(step)

        @rule(choice=st.integers(0, 50), how=st.sampled_from(["append", "extend", "insert"]), fails=st.booleans())
        def sort_with_a_key_that_changes_the_list(self, choice: int, how: str, fails: bool) -> None:
            """``X.sort(key=...)`` whose key adds to the list: a list drops what was added, keeps the sorted
            elements and raises ``ValueError``; a key that then raises itself wins, and nothing is sorted."""
            def step(w: World) -> Any:
                added = self.value(w, choice)

                def key(element: Any) -> int:
                    if how == "insert":
                        w.container.insert(0, added)
                    else:
                        getattr(w.container, how)([added] if how == "extend" else added)
                    if fails:
                        raise KeyError("a key that fails")
                    return 0

                w.container.sort(key=key)

            self.both(step)

        @rule(choice=st.integers(0, 50), at=st.integers(-4, 4))
        def set_item(self, choice: int, at: int) -> None:
            self.both(lambda w: w.container.__setitem__(at, self.value(w, choice)))
            self.both(lambda w: w.container.__delitem__(at))

        @rule(choices=st.lists(st.integers(0, 50), max_size=3), kind=st.sampled_from(["list", "tuple"]))
        def operators(self, choices: list[int], kind: str) -> None:
            def other(w: World) -> Any:
                return {"list": list, "tuple": tuple}[kind](self.value(w, c) for c in choices)

            def equal(w: World, left: bool) -> Any:
                a, b = (w.container, other(w)) if left else (other(w), w.container)
                return (a == b, a != b)

            self.both(lambda w: equal(w, True))
            self.both(lambda w: equal(w, False))
            self.both(lambda w: w.container + other(w))
            self.both(lambda w: other(w) + w.container)
            self.both(lambda w: w.container * 2)

        @rule()
        def reverse_and_clear(self) -> None:
            self.both(lambda w: w.container.reverse())
            if len(self.ref.container) > 6:
                self.both(lambda w: w.container.clear())

        @rule(choice=st.integers(0, 50), at=st.integers(0, 5), backwards=st.booleans(),
              how=st.sampled_from(["append", "remove", "insert", "pop", "clear"]))
        def change_while_iterating(self, choice: int, at: int, backwards: bool, how: str) -> None:
            """A loop that changes the list it walks sees what a list iterator sees: appends, and the
            shift after a removal or an insert before it."""

            def step(w: World) -> Any:
                seen = []
                for position, element in enumerate(reversed(w.container) if backwards else w.container):
                    seen.append(w.norm(element))
                    if position == at:
                        value = self.value(w, choice)
                        if how == "append":
                            w.container.append(value)
                        elif how == "remove":
                            seen.append(w.outcome(lambda: w.container.remove(value)))
                        elif how == "insert":
                            w.container.insert(0, value)
                        elif how == "pop":
                            seen.append(w.norm(w.container.pop(0)))
                        else:
                            w.container.clear()
                return seen

            self.both(step)

        @precondition(lambda self: self.live)
        @rule(index=st.integers(0, 50), after=st.integers(0, 4), backwards=st.booleans())
        def a_death_while_iterating(self, index: int, after: int, backwards: bool) -> None:
            """An element dies mid-loop: the loop goes on over the others, skipping and repeating none; it
            sees what the list's loop saw, less the dead element from then on."""
            label = self.key(index)
            twin = self.ref.objects[label]
            walk = reversed if backwards else iter
            expected = [self.ref.norm(element) for element in walk(self.ref.container)]
            iterator = walk(self.sub.container)
            got = [self.sub.norm(element) for element in itertools.islice(iterator, after + 1)]
            expected = expected[: len(got)] + [seen for seen in expected[len(got):] if seen != ("obj", label)]
            self.live.remove(label)
            self.forget(twin)
            self.ref.drop(label)
            self.sub.drop(label)
            gc.collect()
            got += [self.sub.norm(element) for element in iterator]
            assert got == expected, f"{got!r} != {expected!r}"

        @invariant()
        def same_contents(self) -> None:
            self.both(lambda w: (list(w.container), len(w.container), w.container[:], list(reversed(w.container))))
            self.both(lambda w: (format(w.container, ""), format(w.container, ">8")))  # raises, naming list

    ListContract.TestCase.settings = SETTINGS
    return ListContract


# --- the caches: lru_cache, and a model of its LRU order that says which of its entries hold a dropped label


class LruModel:
    """``lru_cache``'s entries in LRU order, keyed with ``functools._make_key`` (its own key rule)."""

    def __init__(self, maxsize: Optional[int], typed: bool) -> None:
        self.maxsize, self.typed = maxsize, typed
        self.keys: OrderedDict[Any, None] = OrderedDict()

    def call(self, args: tuple, kwargs: dict) -> None:
        if self.maxsize == 0:
            return
        try:
            key = functools._make_key(args, kwargs, self.typed)  # type: ignore[attr-defined]
            hash(key)
        except TypeError:  # unhashable: lru_cache raised before calling
            return
        if key in self.keys:
            self.keys.move_to_end(key)
            return
        self.keys[key] = None
        if self.maxsize is not None and len(self.keys) > self.maxsize:
            self.keys.popitem(last=False)

    def clear(self) -> None:
        self.keys.clear()

    def holding(self, dead: set[int]) -> int:
        """How many entries hold an object of ``dead`` (ids of the built-in world's twins)."""
        def parts(key: Any) -> list:
            return list(key) if isinstance(key, (tuple, list)) else [key]

        return sum(1 for key in self.keys if any(id(part) in dead for part in parts(key)))


class Model(nn.Module):
    """``self`` for cached methods: a module (held weakly by identity)."""

    def __repr__(self) -> str:
        return "Model()"


def cache_machine(runtime: ModuleType, maxsize: Optional[int], typed: bool, as_method: bool) -> type:
    class CacheContract(_TwoWorlds):
        """``functools.lru_cache`` against ``weak_lru_cache``: results, hits, misses, calls, exceptions."""

        def __init__(self) -> None:
            super().__init__()
            self.model = LruModel(maxsize, typed)
            self.dead: set[int] = set()  # ids of the built-in twins of dropped labels (they stay alive there)
            self.kept: list[Any] = []
            for world, decorator in ((self.ref, functools.lru_cache), (self.sub, runtime.weak_lru_cache)):
                world.calls = []

                def function(*args: Any, _world: World = world, **kwargs: Any) -> Any:
                    if "raise" in (*args, *kwargs.values()):
                        raise ValueError("asked to raise")
                    _world.calls.append(_world.norm((args, kwargs)))  # labels: the call keeps no object alive
                    return ["result", len(_world.calls)]

                cached = decorator(maxsize=maxsize, typed=typed)
                if as_method:

                    def method(self: Any, *args: Any, _function: Callable[..., Any] = function, **kwargs: Any) -> Any:
                        return _function(self, *args, **kwargs)

                    method.__qualname__ = "Model.method"
                    world.cls = type("Cached", (Model,), {"method": cached(method)})
                    world.cached = world.cls.method
                else:
                    world.cached = cached(function)
            for _ in range(2):
                self.new_instance("module")

        def forget(self, twin: Any) -> None:
            self.dead.add(id(twin))
            self.kept.append(twin)  # the built-in world's twin lives on (lru_cache may hold it)

        @rule(kind=st.sampled_from(["module", "identity", "scalar", "nan"]))
        def new_instance(self, kind: str = "module") -> None:
            """Instances for methods; for functions, one more argument."""
            self.count += 1
            label = f"self{self.count}"
            for world in (self.ref, self.sub):
                world.add(label, world.cls() if as_method else WEAK[kind](label))
            self.live.append(label)

        @precondition(lambda self: not as_method or any(label.startswith("self") for label in self.live))
        @rule(
            calls=st.lists(
                st.tuples(
                    st.integers(0, 3),  # which instance
                    st.lists(st.integers(0, 7), max_size=2),  # few distinct arguments: hits and evictions
                    st.booleans(),  # the last argument by keyword
                    st.sampled_from(["bound", "bound", "class", "wrapped"]),
                    st.sampled_from([None, None, None, "raise", [1]]),  # an extra argument
                ),
                min_size=1,
                max_size=5,
            )
        )
        def call(self, calls: list[tuple[int, list[int], bool, str, Any]]) -> None:
            selves = [label for label in self.live if label.startswith("self")]
            for instance, choices, keyword, how, extra in calls:

                def arguments(w: World) -> tuple[tuple, dict]:
                    args = [self.value(w, choice) for choice in choices]
                    if extra is not None:
                        args.append(extra)
                    kwargs = {"k": args.pop()} if keyword and args else {}
                    if as_method:
                        args.insert(0, w.objects[selves[instance % len(selves)]])
                    return tuple(args), kwargs

                def step(w: World) -> Any:
                    args, kwargs = arguments(w)
                    if not as_method or how == "class":
                        return w.cached(*args, **kwargs)
                    if how == "wrapped":
                        return args[0].method.__wrapped__(*args, **kwargs)
                    return args[0].method(*args[1:], **kwargs)

                self.both(step)
                args, kwargs = arguments(self.ref)
                if (how != "wrapped" or not as_method) and "raise" not in (*args, *kwargs.values()):
                    self.model.call(args, kwargs)

        @rule(through_instance=st.booleans())
        def cache_clear(self, through_instance: bool) -> None:
            selves = [label for label in self.live if label.startswith("self")]
            for world in (self.ref, self.sub):
                if as_method and through_instance and selves:
                    world.objects[selves[0]].method.cache_clear()
                else:
                    world.cached.cache_clear()
            self.model.clear()

        @invariant()
        def same_counts_and_calls(self) -> None:
            ref, sub = self.ref.cached.cache_info(), self.sub.cached.cache_info()
            assert (ref.hits, ref.misses, ref.maxsize) == (sub.hits, sub.misses, sub.maxsize), (ref, sub)
            assert len(self.model.keys) == ref.currsize, "the model is lru_cache's order"
            assert sub.currsize == ref.currsize - self.model.holding(self.dead), (ref, sub)
            assert self.sub.calls == self.ref.calls
            assert self.ref.cached.cache_parameters() == self.sub.cached.cache_parameters()

    CacheContract.TestCase.settings = SETTINGS
    return CacheContract


# --- the runtimes the machines run on: the installed package, each part vendored alone, and each inlined


def vendored(part: str, tmp: Path) -> ModuleType:
    path = tmp / f"_weakglobals_runtime_{part}.py"
    path.write_text(vendored_text([part]))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def inlined(name: str) -> ModuleType:
    """A module holding the block the codemod inlines into a module that uses ``name`` alone, compiled as
    that module's code is (without this file's ``from __future__ import annotations``), with ``name`` bound
    to what the fix binds it to (``WeakIdMap`` -> ``_WeakIdMap``)."""
    code = inline_code([name])
    module = ModuleType(f"inlined_{name}")
    sys.modules[module.__name__] = module
    exec(compile(code.text, module.__name__, "exec", dont_inherit=True), module.__dict__)
    setattr(module, name, getattr(module, code.names[name]))
    return module


PARTS = {"maps": "WeakIdMap", "values": "WeakValueMap", "sets": "WeakIdSet", "lists": "WeakIdList", "caches": "weak_lru_cache"}


@pytest.fixture(scope="module")
def runtimes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ModuleType]:
    tmp = tmp_path_factory.mktemp("vendored")
    return {
        "installed": installed,
        **{part: vendored(part, tmp) for part in PARTS},
        **{f"{part} inline": inlined(name) for part, name in PARTS.items()},
    }


def run(machine: type) -> None:
    machine.TestCase("runTest").runTest()


@pytest.mark.parametrize("where", ["installed", "maps", "maps inline"])
@pytest.mark.parametrize("factory", [None, int], ids=["dict", "defaultdict"])
def test_weak_id_map_keeps_the_dicts_contract(runtimes: dict[str, ModuleType], where: str, factory: Any) -> None:
    run(map_machine(runtimes[where], factory))


@pytest.mark.parametrize("where", ["installed", "values", "values inline"])
@pytest.mark.parametrize("factory", [None, int], ids=["dict", "defaultdict"])
def test_weak_value_map_keeps_the_dicts_contract(runtimes: dict[str, ModuleType], where: str, factory: Any) -> None:
    run(map_machine(runtimes[where], factory, weak_values=True))


@pytest.mark.parametrize("where", ["installed", "sets", "sets inline"])
def test_weak_id_set_keeps_the_sets_contract(runtimes: dict[str, ModuleType], where: str) -> None:
    run(set_machine(runtimes[where]))


@pytest.mark.parametrize("where", ["installed", "lists", "lists inline"])
def test_weak_id_list_keeps_the_lists_contract(runtimes: dict[str, ModuleType], where: str) -> None:
    run(list_machine(runtimes[where]))


def test_a_collected_entry_keeps_its_place_in_a_bounded_lru_order(runtimes: dict[str, ModuleType]) -> None:
    """What the machine finds only by chance: lru_cache evicts the oldest entry even while a newer one
    holds an object that died, so the freed entry must keep its place until it would have been evicted."""
    calls: dict[str, list] = {"lru": [], "weak": []}
    functions = {
        name: decorator(maxsize=2)(lambda value, _name=name: calls[_name].append(value if isinstance(value, str) else "module"))
        for name, decorator in (("lru", functools.lru_cache), ("weak", runtimes["installed"].weak_lru_cache))
    }
    for name, function in functions.items():
        doomed = nn.Identity()
        function("x")
        function(doomed)
        if name == "weak":
            del doomed  # lru_cache keeps its own alive; the weak cache's dies
        gc.collect()
        function("y")  # evicts "x" from both: the dead entry was the newer one
        function("x")
    assert calls["weak"] == calls["lru"] == ["x", "module", "y", "x"]
    assert functions["weak"].cache_info()[:3] == functions["lru"].cache_info()[:3]


@pytest.mark.parametrize("where", ["installed", "caches", "caches inline"])
@pytest.mark.parametrize(("maxsize", "typed"), [(None, False), (2, False), (3, True), (0, False)])
@pytest.mark.parametrize("as_method", [False, True], ids=["function", "method"])
def test_weak_lru_cache_keeps_lru_caches_contract(
    runtimes: dict[str, ModuleType], where: str, maxsize: Optional[int], typed: bool, as_method: bool
) -> None:
    run(cache_machine(runtimes[where], maxsize, typed, as_method))
