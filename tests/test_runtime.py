"""The runtime's guarantees, each tested with real torch objects where torch is what users put in it."""
from __future__ import annotations

import operator as operator_module

import ast
import copy
import dataclasses
import gc
import io
import itertools
import pickle
import random
import re
import subprocess
import sys
import threading
import tracemalloc
import weakref
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

import pytest
import torch
from torch import nn

from flake8_weakglobals.runtime import WeakIdList, WeakIdMap, WeakIdSet, WeakValueMap
from flake8_weakglobals.runtime import core as runtime_core


class Hostile:
    """Every instance hashes alike and refuses to be compared: a dict raises on the second one, and so must the map."""

    def __hash__(self) -> int:
        return 1

    def __eq__(self, other: object) -> bool:
        raise AssertionError("compared with ==")


class RaisingEqTensor(torch.Tensor):
    """A tensor whose ``==`` raises but whose hash is ``Tensor``'s (``id``): a dict never compares two of them."""

    __hash__ = torch.Tensor.__hash__

    def __eq__(self, other: object) -> bool:  # type: ignore[override]
        raise AssertionError("tensor keys must never be compared with ==")


class Slotted:
    """Identity ``==`` and hash, but no ``__weakref__``: cannot be held weakly, so it is held as a dict holds it."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


@dataclasses.dataclass(frozen=True)
class Point:
    """Its own ``__eq__`` and ``__hash__``: equal points are one key, as in a dict."""

    x: int


def parameters(count: int) -> list[nn.Parameter]:
    return [nn.Parameter(torch.randn(4, 4)) for _ in range(count)]


def ids(objects: object) -> list[int]:
    return [id(item) for item in objects]  # type: ignore[attr-defined]


# --- identity keys: never == --------------------------------------------------------------------------


def test_weak_key_dictionary_fails_with_parameter_keys_where_weak_id_map_works() -> None:
    first, second = parameters(2)
    stdlib = weakref.WeakKeyDictionary({first: "first"})
    with pytest.raises(RuntimeError, match="Boolean value of Tensor"):
        stdlib[first]  # equal hashes send the lookup to Tensor.__eq__
    with pytest.raises(RuntimeError, match="Boolean value of Tensor"):
        first in stdlib

    names = WeakIdMap({first: "first"})
    names[second] = "second"
    assert (names[first], names[second]) == ("first", "second")
    assert torch.randn(4, 4) not in names


def test_tensor_keys_whose_eq_raises_are_found_by_identity() -> None:
    keys = [torch.zeros(3).as_subclass(RaisingEqTensor) for _ in range(50)]
    store = WeakIdMap((key, index) for index, key in enumerate(keys))
    assert [store[key] for key in keys] == list(range(50)) and dict(store) == {key: i for i, key in enumerate(keys)}
    del store[keys[10]]
    assert keys[10] not in store and keys[11] in store and store.get(keys[10]) is None
    members = WeakIdSet(keys)
    assert all(key in members for key in keys) and members == set(keys) and set(keys) == members
    assert store == WeakIdMap(store.items()) and members == WeakIdSet(keys)
    del keys[:20]
    assert len(store) == len(members) == 30, "held weakly: keys dropped by the test are gone"


# --- hybrid keys: identity keys weakly, every other key as a dict holds it ------------------------------


def test_identity_keys_are_held_weakly_and_other_keys_strongly() -> None:
    def function() -> None:
        pass

    weak = [nn.Linear(2, 2), nn.Parameter(torch.ones(2)), torch.ones(2), torch.ones(2).as_subclass(RaisingEqTensor)]
    weak += [function, Point]  # a plain function, and a class (the last one: never collected)
    strong = ["text", 7, 2.5, None, ("a", 1), frozenset({1}), Slotted("s"), Point(1), object(), b"bytes"]
    # others may hold weak references too: once torch._dynamo has run in the process, every new module gets
    # one as it is built (its generation tag), so count what the containers add
    before = [weakref.getweakrefcount(key) for key in weak[:-1]]
    store = WeakIdMap((key, index) for index, key in enumerate(weak + strong))
    members = WeakIdSet(weak + strong)
    added = [weakref.getweakrefcount(key) - count for key, count in zip(weak[:-1], before)]
    assert added == [2] * len(before), "one weak reference per container"
    assert ids(store) == ids(weak + strong) and set(ids(members)) == set(ids(weak + strong))
    strong_ids = ids(strong)
    del weak[:-1], strong, function
    gc.collect()
    assert ids(store)[1:] == strong_ids and set(ids(members)) - {ids(store)[0]} == set(strong_ids)


def test_a_program_that_ran_with_a_dict_runs_with_mixed_keys() -> None:
    module = nn.Linear(2, 2)
    counts: WeakIdMap[object, int] = WeakIdMap()
    counts["total"] = counts.get("total", 0) + 1
    counts[module] = 3
    counts[None] = 0
    counts["total"] = counts.get("total", 0) + 1
    assert counts == {"total": 2, module: 3, None: 0} and list(counts) == ["total", module, None]
    assert counts["total"] == 2 and "total" in counts and "other" not in counts and counts.pop(None) == 0
    with pytest.raises(KeyError, match="'other'"):
        counts["other"]


@pytest.mark.parametrize("key", [1, "name", ("a", 1), None, 2.5, frozenset(), Point(3)])
def test_keys_that_cannot_be_weakly_referenced_behave_as_in_a_dict(key: object) -> None:
    store: WeakIdMap[object, int] = WeakIdMap()
    assert key not in store and store.get(key, "default") == "default"
    with pytest.raises(KeyError):
        store[key]
    store[key] = 1
    members = WeakIdSet([key])
    gc.collect()
    assert store[key] == 1 and key in store and list(store) == [key] and key in members and list(members) == [key]
    del store[key]
    assert key not in store and len(store) == 0


def test_keys_equal_by_value_are_one_key_as_in_a_dict() -> None:
    plain: dict[object, str] = {}
    store: WeakIdMap[object, str] = WeakIdMap()
    for container in (plain, store):
        container[1] = "int"
        container[True] = "bool"
        container[1.0] = "float"
        container[Point(1)] = "point"
        container[Point(1)] = "equal point"
    assert list(store.items()) == list(plain.items()) == [(1, "float"), (Point(1), "equal point")]
    assert type(next(iter(store))) is int, "the first key object is kept, as in a dict"
    members = WeakIdSet([1, True, 1.0])
    assert list(members) == [1] and True in members


def test_a_non_weakrefable_object_with_identity_equality_is_held_strongly() -> None:
    store = WeakIdMap({Slotted("a"): 1})
    gc.collect()
    assert [key.name for key in store] == ["a"] and store == WeakIdMap(store.items())


def test_the_per_class_decision_keeps_no_class_alive() -> None:
    """torch.fx makes a class per GraphModule: deciding how to hold its objects must not pin the class."""
    made = type("Made", (), {})
    store, members = WeakIdMap({made(): 1, "name": 2}), WeakIdSet([made()])
    assert "name" in store and made() not in store and len(members) == 0
    class_ref, class_id = weakref.ref(made), id(made)
    assert class_id in runtime_core._by_identity
    del made
    gc.collect()
    assert class_ref() is None and class_id not in runtime_core._by_identity, "the decision goes with its class"


def test_unhashable_and_raising_keys_raise_what_a_dict_raises() -> None:
    for container in ({}, WeakIdMap()):
        with pytest.raises(TypeError, match="unhashable type: 'list'"):
            container[[1]] = 1  # type: ignore[index]
        with pytest.raises(TypeError, match="unhashable type: 'list'"):
            [1] in container  # type: ignore[operator]
        container[Hostile()] = 1  # type: ignore[index]
        with pytest.raises(AssertionError, match="compared"):
            container[Hostile()] = 2  # type: ignore[index]


def _program(
    make_dict: Callable[..., Any], make_set: Callable[..., Any], model: nn.Sequential, tensor: torch.Tensor
) -> list[str]:
    """A program that uses a dict and a set keyed by a real model's objects and by plain values, and the
    transcript of what it prints and raises: the same with the built-ins and with the runtime (given the
    same objects: a set's order follows their hashes, that is their ids)."""
    weight, bias = model[0].weight, model[0].bias
    printed: list[str] = []

    def show(*values: object) -> None:
        printed.append(" | ".join(map(repr, values)))

    def attempt(action: Callable[[], object]) -> None:
        try:
            show(action())
        except Exception as error:  # what the program would have seen
            show(type(error), str(error))

    names = make_dict()
    names["total"] = names.get("total", 0) + 1
    names[model], names[None], names[1], names[True], names[weight], names[("a", 1)], names[tensor] = range(7)
    names[model], names[1.0] = "model", "one"
    del names[None]
    names[None] = "again"
    show(names, len(names), list(names), list(names.values()), list(names.items()), names.keys(), names.values())
    show(list(reversed(names)), list(reversed(names.items())), list(reversed(names.values())), names.items())
    show(weight in names, "total" in names, 2 in names, torch.zeros(2) in names, (tensor, 6) in names.items())
    show(names.get(bias), names.get("absent", "default"), names.setdefault(bias, "bias"), names.setdefault(1, 0))
    show(names.pop("total"), names.pop("absent", "default"), names.popitem(), names.popitem(), str(names))
    for action in (lambda: names["absent"], lambda: names.pop("absent"), lambda: names.__delitem__("absent")):
        attempt(action)
    attempt(lambda: names.__setitem__([1], 2))
    attempt(lambda: names == {weight: torch.ones(2)})
    names.update({"u": 1}, v=2)
    names.update([("w", 3)])
    names |= {"x": 4}
    show(names, names | {"y": 5}, {"z": 6} | names, type(names | {}).__name__, copy.copy(names))
    show(names == dict(names.items()), dict(names.items()) == names, names != {}, {} != names)
    counts = make_dict(int)
    counts[weight] += 1
    counts["steps"] += 2
    counts[model] += counts[bias]
    show(counts, counts.get("absent"), "absent" in counts, counts.default_factory)
    model_copy, tensor_copy, names_copy = copy.deepcopy((model, tensor, names))  # what holds every key
    show(names_copy[model_copy[0].weight], tensor_copy in names_copy, model in names_copy, names_copy)

    seen = make_set()
    for element in (model, weight, None, 3, 1, "s", True, bias, 17):
        seen.add(element)
    show(seen, len(seen), model in seen, 2 in seen, sorted(map(repr, seen)), list(seen))
    # A set operator's result is a new set whose order follows how it was built, not only the hashes
    # (docs/runtime.md): its elements are compared, as ``repr``s sorted, and its type.
    for made in ((seen - {None}, {None} | seen, seen | {None}, seen & {3, model}, {3, 4} ^ seen, {weight, 5} - seen),
                 (seen.union([7]), seen.intersection({3}), seen.difference({3}), seen.symmetric_difference({3, 8}))):
        show(*((type(result).__name__, sorted(map(repr, result))) for result in made))
    show(seen.issubset(seen | {1}), seen.issuperset({3}), seen.isdisjoint({9}), seen <= seen | {2}, seen == seen | {3})
    for element in (3, "s"):
        seen.discard(element)
    seen.remove(None)
    attempt(lambda: seen.remove("absent"))
    seen.difference_update({1})
    seen.intersection_update({model, weight, bias, 17})
    seen.symmetric_difference_update({17, 5})
    seen |= {6}
    seen -= {6}
    seen &= {model, weight, 5}
    seen ^= {7}
    show(sorted(map(repr, seen)), len(seen), seen == {model, weight, 5, 7})
    return printed


def test_a_program_prints_and_raises_exactly_what_it_did_with_a_dict_and_a_set() -> None:
    model, tensor = nn.Sequential(nn.Linear(2, 2), nn.ReLU()), torch.ones(2)
    builtins = _program(lambda *factory: defaultdict(*factory) if factory else {}, set, model, tensor)
    runtime = _program(lambda *factory: WeakIdMap(default_factory=(factory or [None])[0]), WeakIdSet, model, tensor)
    assert len(runtime) == len(builtins) == 20
    for line, (got, expected) in enumerate(zip(runtime, builtins)):
        assert got == expected, line


# --- entries go when keys go -----------------------------------------------------------------------


def test_entry_disappears_when_its_key_is_collected() -> None:
    keys = parameters(3)
    store = WeakIdMap((key, "x") for key in keys)
    members = WeakIdSet(keys)
    del keys[0]
    gc.collect()
    assert len(store) == 2 and len(members) == 2


def test_replaced_submodule_of_a_real_model_is_freed() -> None:
    model = nn.Sequential(*(nn.Linear(64, 64) for _ in range(4)))
    names = WeakIdMap({parameter: name for name, parameter in model.named_parameters()})
    old_weight = weakref.ref(model[2].weight)
    model[2] = nn.Linear(64, 64)
    gc.collect()
    assert old_weight() is None
    assert len(names) == 6


def _behind_a_dead_entry(store: WeakIdMap) -> nn.Module:
    """A new object whose id holds a dead entry of ``store``: what a lost removal callback plus id reuse leave."""
    doomed = nn.Linear(2, 2)
    store[doomed] = "stale"
    dead_entry = store._data.pop(id(doomed))
    del doomed
    gc.collect()
    assert dead_entry() is None
    newcomer = nn.Linear(2, 2)
    store._data[id(newcomer)] = dead_entry
    return newcomer


def test_a_stale_entry_under_a_reused_id_is_never_a_hit() -> None:
    """A removal callback that never ran leaves a dead entry; a new object with that id must miss."""
    store = WeakIdMap()
    newcomer = _behind_a_dead_entry(store)
    assert newcomer not in store
    assert store.get(newcomer, "missing") == "missing"
    with pytest.raises(KeyError):
        store[newcomer]
    store[newcomer] = "fresh"
    assert store[newcomer] == "fresh"



def test_a_key_freed_by_the_cyclic_collector_leaves_no_entry_that_looks_live() -> None:
    """Lookups test an entry's ``__callback__`` (torch.compile can read it, not call the entry). The cyclic
    collector leaves it set on a dead key's entry, so the removal callback must have dropped that entry."""
    store, members = WeakIdMap(), WeakIdSet()
    doomed = nn.Linear(2, 2)
    doomed.cycle = [doomed]  # freed only by the collector
    store[doomed], doomed_id = "value", id(doomed)
    members.add(doomed)
    entry = store._data[doomed_id]
    del doomed
    gc.collect()
    assert entry() is None and entry.__callback__ is not None, "the collector's way of freeing a key"
    assert doomed_id not in store._data and doomed_id not in members._data
    assert len(store) == 0 and len(members) == 0

def test_container_never_keeps_itself_alive() -> None:
    key = nn.Linear(2, 2)
    # torch may hold weak references of its own to each new module (once torch.compile has run in this
    # process, dynamo tags every module it sees made): count the container's against those
    others = weakref.getweakrefcount(key)
    gc.disable()
    try:
        store, members = WeakIdMap({key: 1}), WeakIdSet([key])
        refs = weakref.ref(store), weakref.ref(members)
        del store, members
        assert refs[0]() is None and refs[1]() is None, "freed by reference counting alone"
    finally:
        gc.enable()
    assert weakref.getweakrefcount(key) == others


def test_overwriting_a_key_keeps_one_weak_reference() -> None:
    key = nn.Linear(2, 2)
    others = weakref.getweakrefcount(key)  # torch's own, as above
    store = WeakIdMap()
    for value in range(100):
        store[key] = value
    assert weakref.getweakrefcount(key) == others + 1 and store[key] == 99


def test_clear_and_refill_and_rebinding_stay_flat() -> None:
    keys = parameters(200)
    finalizers_before = len(weakref.finalize._registry)  # type: ignore[attr-defined]
    store = WeakIdMap()

    def refill_rounds(rounds: int) -> None:
        nonlocal store
        for round_number in range(rounds):
            store.clear()
            store.update((key, round_number) for key in keys)
            store = WeakIdMap((key, round_number) for key in keys)  # rebinding a global to a fresh map

    refill_rounds(10)
    gc.collect()
    tracemalloc.start()
    baseline = tracemalloc.get_traced_memory()[0]
    refill_rounds(1000)
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - baseline
    tracemalloc.stop()
    assert grown < 64 * 1024, f"memory grew by {grown} bytes over 1,000 rounds"
    assert all(weakref.getweakrefcount(key) == 1 for key in keys)
    assert len(weakref.finalize._registry) == finalizers_before  # type: ignore[attr-defined]


def test_a_weak_id_list_orders_against_lists_as_a_list_does() -> None:
    """``registry < []``, ``[] < registry``, ``registry <= list(registry)``: the list's own answers (and its
    TypeError against anything else), on the live elements (found by the generated programs: the rewrite
    raised TypeError where the list printed False)."""

    def outcome(compare: Callable[[], object]) -> object:
        try:
            return compare()
        except TypeError:
            return TypeError

    layer = nn.Linear(2, 2)
    for elements in ([], [layer], [1, 2], [layer, layer]):
        plain, weak = list(elements), WeakIdList(elements)
        for other in ([], [layer], [1, 3], list(elements), WeakIdList(elements), (1,)):
            as_plain = list(other) if isinstance(other, WeakIdList) else other
            for name in ("lt", "le", "gt", "ge"):
                compare = getattr(operator_module, name)
                assert outcome(lambda: compare(weak, other)) == outcome(lambda: compare(plain, as_plain)), (elements, other, name)
                assert outcome(lambda: compare(other, weak)) == outcome(lambda: compare(as_plain, plain)), (other, elements, name)


def _outcome(action: Callable[[], object]) -> object:
    """What ``action`` returns, or the type and message of what it raises."""
    try:
        return action()
    except Exception as error:
        return (type(error).__name__, str(error))


def test_a_weak_id_list_searches_as_a_list_does() -> None:
    """Identity first, then the element's ``==``: an equal one-element tensor is found by ``in``, ``index``,
    ``count`` and ``remove``; a multi-element one raises the list's own error (set 4 of the adversarial
    programs: a plateau test by ``in`` over 0-d losses, and an ``index`` of an equal tensor, changed)."""
    loss, same_value, other = torch.tensor(0.5), torch.tensor(0.5), torch.tensor(0.25)
    block, vector, equal_vector = nn.Linear(1, 1), torch.ones(2), torch.ones(2)
    for elements in ([other, loss], [block, other, loss, 1], [vector], [block, vector, 0.5]):
        for probe in (same_value, loss, 0.5, 1, equal_vector, block, True):
            plain, weak = list(elements), WeakIdList(elements)
            for name in ("__contains__", "count", "index", "remove"):
                assert _outcome(lambda: getattr(weak, name)(probe)) == _outcome(lambda: getattr(plain, name)(probe)), (elements, probe, name)
                assert list(weak) == plain
            assert _outcome(lambda: weak == list(elements)) == _outcome(lambda: plain == list(elements))
    assert _outcome(lambda: WeakIdList([loss]).index(loss, "1")) == _outcome(lambda: [loss].index(loss, "1"))
    assert _outcome(lambda: WeakIdList([other, loss]).index(same_value, 0, 1)) == _outcome(lambda: [other, loss].index(same_value, 0, 1))


def test_a_weak_id_list_iterator_reads_the_list_as_it_is_at_each_step() -> None:
    """A list iterator sees elements appended during the loop and, after a removal before it, skips the
    next one; reversed sees neither an append nor, past its start, a shrink (set 4: a breadth-first walk
    that extends the list it iterates, and a prune that removes while iterating, changed)."""
    blocks = [nn.Linear(1, 1) for _ in range(6)]

    def walk(container: Any, backwards: bool, change: Callable[[Any, object], None]) -> list[int]:
        seen, changed = [], False
        for element in reversed(container) if backwards else container:
            seen.append(blocks.index(element) if isinstance(element, nn.Module) else element)
            if not changed and change(container, element) is not False:
                changed = True  # once: an insert before the iterator would make it see that element again
        return seen

    changes: dict[str, Callable[[Any, object], None]] = {
        "append": lambda c, e: c.append(blocks[4]) if e is blocks[0] else False,
        "remove the current one": lambda c, e: c.remove(e) if e is blocks[1] else False,
        "insert at the front": lambda c, e: c.insert(0, blocks[5]) if e is blocks[2] else False,
        "pop the front": lambda c, e: c.pop(0) if e is blocks[2] else False,
        "clear": lambda c, e: c.clear() if e is blocks[1] else False,
        "extend with numbers": lambda c, e: c.extend([7, 8]) if e is blocks[3] else False,
    }
    for name, change in changes.items():
        for backwards in (False, True):
            plain, weak = list(blocks[:4]), WeakIdList(blocks[:4])
            assert walk(weak, backwards, change) == walk(plain, backwards, change), (name, backwards)
            assert list(weak) == plain
    iterator = iter(WeakIdList([1]))
    assert list(iterator) == [1]
    assert next(iterator, None) is None, "an exhausted iterator stays exhausted"


def test_a_death_mid_loop_makes_a_weak_id_list_iterator_skip_and_repeat_nothing() -> None:
    """Dead references go in one pass at the list's next use, which moves the elements' positions: an
    iterator open then moves with them, forwards and backwards, whether the dead element was behind it or
    ahead of it."""
    for backwards in (False, True):
        for dead in range(5):
            for after in range(1, 5):
                blocks = [nn.Linear(1, 1) for _ in range(5)]
                names = {id(block): number for number, block in enumerate(blocks)}
                order = list(range(5))[::-1] if backwards else list(range(5))
                weak = WeakIdList(blocks)
                iterator = reversed(weak) if backwards else iter(weak)
                seen = [names[id(element)] for element in itertools.islice(iterator, after)]
                del blocks[dead]
                gc.collect()
                assert len(weak) == 4
                seen += [names[id(element)] for element in iterator]
                assert seen == order[:after] + [number for number in order[after:] if number != dead], (backwards, dead, after)


# --- iteration, threads -----------------------------------------------------------------------------


def test_keys_dying_during_iteration_never_raise() -> None:
    for make in (lambda keys: WeakIdMap.fromkeys(keys, 0), WeakIdSet, WeakIdList):
        keys = [nn.Linear(2, 2) for _ in range(100)]
        container = make(keys)
        visited = []
        for key in container:
            visited.append(type(key))
            keys.clear()  # every other key dies in the first iteration: the walk skips them
            gc.collect()
        del key
        gc.collect()
        assert visited == [nn.Linear] and len(container) == 0


def test_iteration_reads_each_value_when_it_reaches_it_as_a_dict_does() -> None:
    for make in (dict, WeakIdMap):
        a, b = nn.ReLU(), nn.Tanh()
        names = make()
        names[a], names[b], names["total"] = 1, 2, 0
        seen = []
        for key, value in names.items():
            if key is a:
                names["total"] = 5  # an overwrite, seen when the loop gets there
            seen.append(value)
        assert seen == [1, 2, 5], make


def test_threads_inserting_reading_deleting_and_dropping_keys() -> None:
    """Each thread checks the map against a dict of its own keys, which no other thread touches: whatever the
    interleaving, the map must hold what that dict holds for them."""
    store: WeakIdMap[nn.Module, int] = WeakIdMap()
    errors: list[BaseException] = []

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        mine: list[nn.Module] = []
        model: dict[nn.Module, int] = {}  # what a dict would hold for this thread's keys (``mine`` keeps them alive)
        try:
            for step in range(3000):
                action = rng.random()
                if action < 0.4 or not mine:
                    mine.append(nn.Identity())
                    store[mine[-1]] = model[mine[-1]] = step
                elif action < 0.7:
                    key = rng.choice(mine)
                    assert store.get(key, "absent") == model.get(key, "absent") and (key in store) == (key in model)
                    if key in model:
                        assert store[key] == model[key]
                elif action < 0.85:
                    key = mine.pop(rng.randrange(len(mine)))
                    assert store.pop(key, "absent") == model.pop(key, "absent") and key not in store
                else:
                    model.pop(mine.pop(rng.randrange(len(mine))), None)  # dropped: the entry must go by itself
                if step % 500 == 0:
                    gc.collect()
                    values = {id(key): value for key, value in store.items()}  # every thread's live entries
                    assert [values.get(id(key), "absent") for key in mine] == [model.get(key, "absent") for key in mine]
            mine.clear()
        except BaseException as error:  # collected for the main thread to report
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    gc.collect()
    assert errors == []
    assert len(store) == 0 == len(list(store))



def test_threads_racing_on_the_same_keys_get_what_a_dicts_and_sets_single_steps_give() -> None:
    """``m.setdefault(k, []).append(x)``, ``m.pop(k, None)``, ``s.add(k)`` and ``s.discard(k)`` are each one
    step of a dict or a set under the GIL, and programs rely on it (a server's threads noting every layer,
    then each detaching every hook). Threads racing on the same keys lose no append, pop each entry once,
    and hold each element once; a thread switch forced after every few bytecodes makes a lost race likely
    on every round where one is possible."""
    layers = [nn.Identity() for _ in range(200)]
    workers, rounds = 8, 5
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(rounds):
            samples: WeakIdMap[nn.Module, list[int]] = WeakIdMap()
            warm: WeakIdSet[nn.Module] = WeakIdSet()
            popped: list[int] = []
            errors: list[BaseException] = []
            start = threading.Barrier(workers)

            def note(worker: int) -> None:
                start.wait()
                for layer in layers:
                    samples.setdefault(layer, []).append(worker)
                    warm.add(layer)

            def detach() -> None:
                start.wait()
                try:
                    popped.append(sum(samples.pop(layer, None) is not None for layer in layers))
                    for layer in layers:
                        warm.discard(layer)
                except BaseException as error:  # reported by the main thread
                    errors.append(error)

            for job in (note, detach):
                threads = [threading.Thread(target=job, args=(i,) if job is note else ()) for i in range(workers)]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()
                if job is note:
                    assert sum(len(values) for values in samples.values()) == workers * len(layers), "an append was lost"
                    assert len(warm) == len(list(warm)) == len(layers), "a layer is held twice"
            assert errors == [] and sum(popped) == len(layers), "each entry is popped once"
            assert len(samples) == 0 and len(warm) == 0 and list(warm) == []
    finally:
        sys.setswitchinterval(interval)

# --- torch resurrection ------------------------------------------------------------------------------


def test_dereferenced_keys_get_fix_weakref_called() -> None:
    calls: list[object] = []

    class Resurrectable:
        def _fix_weakref(self) -> None:
            calls.append(self)

    key = Resurrectable()
    store = WeakIdMap({key: 1})
    assert list(store) == [key] and calls == [key]
    tensor = torch.ones(3)
    assert list(WeakIdSet([tensor])) == [tensor]  # the real Tensor._fix_weakref is called without error


# --- copying, pickling, equality, repr ---------------------------------------------------------------


def test_pickling_gives_back_what_the_replaced_builtin_would() -> None:
    """``torch.save`` or ``pickle`` of a fixed container loads as the dict, defaultdict, set or list the
    program pickled before the fix, with the same entries: a weak container of freshly loaded keys would
    lose them at once."""
    layers = [nn.Linear(2, 2), nn.Linear(2, 2)]
    names = WeakIdMap({layer: f"l{i}" for i, layer in enumerate(layers)})
    grouped = WeakIdMap(default_factory=list)
    grouped["a"].append(layers[0])
    plain_names = {layer: name for layer, name in names.items()}
    cases = [(names, plain_names), (grouped, defaultdict(list, {"a": [layers[0]]})), (WeakIdSet(layers), set(layers)),
             (WeakIdList(layers), list(layers)), (WeakValueMap({"a": layers[0]}), {"a": layers[0]})]
    for weak, plain in cases:
        loaded, expected = pickle.loads(pickle.dumps((layers, weak))), pickle.loads(pickle.dumps((layers, plain)))
        assert type(loaded[1]) is type(expected[1]) and len(loaded[1]) == len(expected[1]) > 0
        def shape(pair: tuple) -> list:  # each layer as its position in the pickle's own list of layers
            position = {id(layer): i for i, layer in enumerate(pair[0])}
            def named(x: Any) -> Any:
                return [named(e) for e in x] if isinstance(x, list) else position.get(id(x), x)
            return [(named(k), named(pair[1][k])) if isinstance(pair[1], dict) else named(k) for k in pair[1]]
        in_order = (lambda items: sorted(items, key=repr)) if isinstance(expected[1], set) else list  # a set's order is its hashes'
        assert in_order(shape(loaded)) == in_order(shape(expected))
    assert pickle.loads(pickle.dumps(grouped)).default_factory is list


def test_copy_keeps_the_keys_and_the_default_factory() -> None:
    key = nn.Linear(2, 2)
    store = WeakIdMap({key: [1, 2], "name": [3]}, default_factory=list)
    shallow = copy.copy(store)
    assert isinstance(shallow, WeakIdMap) and shallow.default_factory is list
    assert shallow[key] is store[key] and list(shallow) == [key, "name"]
    members = WeakIdSet([key, "name"])
    assert isinstance(members.copy(), WeakIdSet) and members.copy() == members and copy.copy(members) == members


def test_deepcopy_with_the_model_keys_the_copy_by_the_copied_parameters() -> None:
    model = nn.Linear(3, 2)
    names = WeakIdMap({parameter: name for name, parameter in model.named_parameters()})
    names[model], names["steps"] = "root", [1]
    seen = WeakIdSet([model.weight, "steps"])
    plain_names, plain_seen = dict(names), set(seen)
    for model_first in (True, False):  # a dict is keyed by the copies whichever is copied first
        if model_first:
            model_copy, names_copy, seen_copy = copy.deepcopy((model, names, seen))
        else:
            names_copy, seen_copy, model_copy = copy.deepcopy((names, seen, model))
        assert ids(names_copy) == ids([model_copy.weight, model_copy.bias, model_copy, "steps"])
        assert names_copy[model_copy.weight] == "weight" and model.weight not in names_copy
        assert names_copy["steps"] == [1] and names_copy["steps"] is not names["steps"]
        assert set(ids(seen_copy)) == set(ids([model_copy.weight, "steps"]))
        dict_model, dict_names, dict_seen = copy.deepcopy((model, plain_names, plain_seen))
        assert ids(dict_names)[:3] == ids([dict_model.weight, dict_model.bias, dict_model]), "what a dict does"
    assert names[model.weight] == "weight" and ids(names) == ids([model.weight, model.bias, model, "steps"])


def test_deepcopy_alone_never_hands_out_the_original_keys() -> None:
    model = nn.Linear(3, 2)
    with torch.no_grad():
        model.weight.fill_(1.0)  # not its random initial values: what the copy's zeroing must leave alone
    names = WeakIdMap({model.weight: "weight", "steps": 2}, default_factory=int)
    seen = WeakIdSet([model.weight, "steps"])
    memo: dict = {}
    names_copy, seen_copy = copy.deepcopy(names, memo), copy.deepcopy(seen, memo)  # the memo holds the copies
    weight_copy = next(iter(names_copy))
    assert weight_copy is not model.weight and isinstance(weight_copy, nn.Parameter)
    assert ids(seen_copy) and all(element is not model.weight for element in seen_copy)
    with torch.no_grad():
        weight_copy.zero_()
    assert torch.equal(model.weight, torch.ones(2, 3)), "mutating the copy's key leaves the model alone"
    assert names_copy.default_factory is int
    del memo, weight_copy
    gc.collect()
    assert dict(names_copy) == {"steps": 2} and list(seen_copy) == ["steps"], "fresh keys nothing holds are gone"


def test_equality_is_a_dicts_identity_keys_by_identity_other_keys_by_equality() -> None:
    first, second = nn.Linear(2, 2), nn.Linear(2, 2)
    store = WeakIdMap({first: 1, second: 2, "name": 3, None: 4})
    assert store == {first: 1, second: 2, "name": 3, None: 4} and {second: 2, None: 4, "name": 3, first: 1} == store
    assert store == WeakIdMap({None: 4, "name": 3, second: 2, first: 1})
    assert store != {first: 1, second: 3, "name": 3, None: 4} and store != {first: 1, second: 2, "other": 3, None: 4}
    assert store != {first: 1, nn.Linear(2, 2): 2, "name": 3, None: 4} and store != {first: 1}
    assert WeakIdMap() == {} and {} == WeakIdMap() and store != [first, second]
    members = WeakIdSet([first, "name"])
    assert members == {first, "name"} and {"name", first} == members and members != {second, "name"}
    assert members <= {first, "name", 3} and members < {first, "name", 3} and not members < {first, "name"}
    assert {first} <= members and members.isdisjoint({second, "other"}) and not members.isdisjoint({"name"})
    with pytest.raises(TypeError):
        hash(store)
    with pytest.raises(TypeError):
        hash(members)


def test_repr_and_str_print_what_the_dict_printed() -> None:
    model = nn.Linear(2, 2)
    plain = {model: "root", model.weight: "weight", "steps": 1, None: (1, 2)}
    store = WeakIdMap(plain)
    assert repr(store) == repr(plain) and str(store) == str(plain) and f"{store}" == f"{plain}"
    assert "Linear(in_features=2" in repr(store) and "Parameter containing" in repr(store)
    assert repr(store.keys()) == repr(plain.keys()) and repr(store.values()) == repr(plain.values())
    assert repr(store.items()) == repr(plain.items()) and repr(WeakIdMap()) == repr({}) == "{}"
    plain["self"], store["self"] = plain, store
    assert repr(store) == repr(plain), "a map that holds itself prints {...}, as a dict does"


def test_repr_with_a_default_factory_prints_what_the_defaultdict_printed() -> None:
    model = nn.Linear(2, 2)
    plain: defaultdict[object, list] = defaultdict(list)
    store: WeakIdMap[object, list] = WeakIdMap(default_factory=list)
    assert repr(store) == repr(plain) == "defaultdict(<class 'list'>, {})"
    for container in (plain, store):
        container[model].append("hook")
        container["count"].append(1)
    assert repr(store) == repr(plain) and str(store) == str(plain)


def test_set_repr_and_order_are_a_sets() -> None:
    model = nn.Linear(2, 2)
    assert repr(WeakIdSet()) == repr(set()) == "set()"
    for elements in ([3, 1, 2], [model, model.weight, "a", None, 10, 9, 17, 1], [model.bias, 5]):
        assert repr(WeakIdSet(elements)) == repr(set(elements)) and str(WeakIdSet(elements)) == str(set(elements))
        assert ids(WeakIdSet(elements)) == ids(set(elements)), "iterates in the order a set would"


def test_pop_takes_the_element_the_sets_pop_takes() -> None:
    """Which element ``pop`` takes follows the table, after adds, a discard and an element that died (the set
    machine below pops too, but its derandomized draw need not pop from a set of several elements)."""
    layer, gone = nn.Linear(2, 2), nn.Identity()
    elements = [layer, layer.weight, torch.zeros(3), gone, 1, "name", None, Point(1), 17, Slotted("s")]
    members, table = WeakIdSet(elements), set(elements)  # the program's set, which keeps every element alive
    members.discard(layer.weight)
    table.discard(layer.weight)
    table.discard(gone)  # the program's set lets it go; the runtime's drops it when it dies
    alive = weakref.ref(gone)
    del elements, gone
    assert alive() is None
    while table:
        assert members.pop() is table.pop()
    with pytest.raises(KeyError, match="pop from an empty set"):
        members.pop()


# --- order -------------------------------------------------------------------------------------------------


def test_insertion_order_is_kept_across_both_kinds_of_key() -> None:
    a, b, c = parameters(3)
    module = nn.Linear(2, 2)
    plain: dict[object, object] = {}
    store: WeakIdMap[object, object] = WeakIdMap()
    for container in (plain, store):
        container[a], container["x"], container[module], container[None], container[b] = 1, 2, 3, 4, 5
        container[a] = "overwritten"  # keeps its place
        container["x"] = "overwritten"
        del container[module], container[None]
        container[None], container[module] = 6, 7  # deleted then reinserted: at the end
        container[c] = 8
    assert ids(store) == ids(plain) == ids([a, "x", b, None, module, c])
    assert list(store.values()) == list(plain.values()) and ids(k for k, _ in store.items()) == ids(plain)
    assert ids(store.keys()) == ids(plain.keys()) and repr(store) == repr(plain)
    while plain:
        assert ids(store.popitem()) == ids(plain.popitem()), "popitem is LIFO, as a dict's"
    with pytest.raises(KeyError, match="popitem\\(\\): dictionary is empty"):
        store.popitem()


def test_a_new_key_under_a_dead_entrys_id_goes_to_the_end() -> None:
    store = WeakIdMap()
    newcomer = _behind_a_dead_entry(store)
    store["later"] = 1
    store[newcomer] = 2
    assert ids(store) == ids(["later", newcomer])


def test_reversed_map_and_views() -> None:
    a, b = parameters(2)
    plain = {a: 1, "x": 2, None: 3, b: 4}
    store = WeakIdMap(plain)
    assert ids(reversed(store)) == ids(reversed(plain)) == ids([b, None, "x", a])
    assert ids(reversed(store.keys())) == ids(reversed(plain.keys()))
    assert list(reversed(store.values())) == list(reversed(plain.values())) == [4, 3, 2, 1]
    assert [(id(k), v) for k, v in reversed(store.items())] == [(id(k), v) for k, v in reversed(plain.items())]
    del a, plain
    gc.collect()
    assert list(reversed(store.values())) == [4, 3, 2]
    with pytest.raises(TypeError):
        reversed(WeakIdSet([b]))  # type: ignore[call-overload]  # a set is not reversible either


# --- operators that build a new container ------------------------------------------------------------------


def test_set_operators_return_plain_strong_sets() -> None:
    a, b = parameters(2)
    members = WeakIdSet([a, b, "name"])
    fresh = [nn.Linear(2, 2) for _ in range(3)]
    difference = set(fresh) - members  # the reflected operator: fresh objects only the result holds
    fresh_ids = ids(fresh)
    del fresh
    gc.collect()
    assert type(difference) is set and set(ids(difference)) == set(fresh_ids), "no data lost"
    results = {
        "or": members | {None}, "ror": {None} | members, "and": members & {a, "name", 1}, "rand": {a, 1} & members,
        "sub": members - {a}, "rsub": {a, None} - members, "xor": members ^ {a, None}, "rxor": {a, None} ^ members,
        "keys": members & {a: 1}.keys(), "two weak sets": members | WeakIdSet([None]),
    }
    plain = {a, b, "name"}
    expected = {
        "or": plain | {None}, "ror": {None} | plain, "and": plain & {a, "name", 1}, "rand": {a, 1} & plain,
        "sub": plain - {a}, "rsub": {a, None} - plain, "xor": plain ^ {a, None}, "rxor": {a, None} ^ plain,
        "keys": plain & {a: 1}.keys(), "two weak sets": plain | {None},
    }
    for name, result in results.items():
        assert type(result) is set and isinstance(result, set), name
        assert set(ids(result)) == set(ids(expected[name])), name
    assert (members | {None}).union([1]) == {a, b, "name", None, 1}
    with pytest.raises(TypeError):
        members | [None]  # type: ignore[operator]  # as with a set
    with pytest.raises(TypeError):
        [None] - members  # type: ignore[operator]


def test_set_methods_return_plain_sets_and_update_in_place() -> None:
    a, b, c = parameters(3)
    members = WeakIdSet([a, b, "name"])
    plain = {a, b, "name"}
    for method, arguments in [
        ("union", ([c], {None})), ("intersection", ([a, "name"],)), ("difference", ([a], ["name"])),
        ("symmetric_difference", ([a, c],)), ("issubset", ([a, b, "name", c],)), ("issuperset", ([a],)),
        ("isdisjoint", ([c],)),
    ]:
        result, expected = getattr(members, method)(*arguments), getattr(plain, method)(*arguments)
        assert type(result) is type(expected), method
        assert result == expected if type(result) is bool else set(ids(result)) == set(ids(expected)), method
    for method, arguments in [
        ("intersection_update", ([a, b, "name", c], {a, "name", c})), ("difference_update", ([a],)),
        ("symmetric_difference_update", ([a, "name", None],)), ("update", ([c], [b])),
    ]:
        assert getattr(members, method)(*arguments) is None and getattr(plain, method)(*arguments) is None
        assert isinstance(members, WeakIdSet) and set(ids(members)) == set(ids(plain)), method
    members -= {None}
    members |= {a}
    members &= {a, b}
    members ^= {b, 5}
    plain -= {None}
    plain |= {a}
    plain &= {a, b}
    plain ^= {b, 5}
    assert isinstance(members, WeakIdSet) and set(ids(members)) == set(ids(plain))
    del a, plain
    gc.collect()
    assert list(members) == [5]


def test_map_or_returns_what_the_dict_or_returned() -> None:
    a, b = parameters(2)
    store = WeakIdMap({a: 1, "x": 2})
    plain = {a: 1, "x": 2}
    for result, expected in [
        (store | {b: 3, "x": 4}, plain | {b: 3, "x": 4}),
        ({b: 3, "x": 4} | store, {b: 3, "x": 4} | plain),
        (store | WeakIdMap({None: 5}), plain | {None: 5}),
    ]:
        assert type(result) is dict and ids(result) == ids(expected)
        assert list(result.values()) == list(expected.values())
    factory_store = WeakIdMap({a: [1]}, default_factory=list)
    result = factory_store | {b: [2]}
    assert type(result) is defaultdict and result.default_factory is list and result == {a: [1], b: [2]}
    assert type({b: [2]} | factory_store) is defaultdict
    fresh = {nn.Linear(2, 2): "only the result holds me"}
    merged = store | fresh
    del fresh
    gc.collect()
    assert len(merged) == 3, "a plain dict keeps what only it holds"
    with pytest.raises(TypeError):
        store | [(b, 1)]  # type: ignore[operator]  # as with a dict
    store |= [(b, 3)]
    assert store == {a: 1, "x": 2, b: 3}


# --- the API ---------------------------------------------------------------------------------------


def test_mapping_api() -> None:
    a, b, c = parameters(3)
    store: WeakIdMap[nn.Parameter, str] = WeakIdMap([(a, "a")])
    store.update({b: "b"})
    store |= [(c, "c")]
    assert list(store) == [a, b, c] and list(store.keys()) == [a, b, c]
    assert list(store.values()) == ["a", "b", "c"] and (b, "b") in store.items()
    assert store.setdefault(a, "z") == "a" and store.pop(b) == "b" and store.pop(b, None) is None
    assert store.popitem() == (c, "c") and len(store) == 1
    store.update({"y": "y"}, x="x")  # keyword arguments, as dict.update takes them
    assert store.pop("x") == "x" and store.pop("y") == "y" and WeakIdMap(z=1) == {"z": 1}
    store.clear()
    with pytest.raises(KeyError, match="empty"):
        store.popitem()
    assert WeakIdMap.fromkeys([a, b], 0) == {a: 0, b: 0}
    assert str(WeakIdMap[nn.Module, str]).endswith("WeakIdMap[torch.nn.modules.module.Module, str]")


def test_default_factory_like_defaultdict() -> None:
    key, other = nn.Linear(2, 2), nn.Linear(2, 2)
    hooks = WeakIdMap(default_factory=list)
    hooks[key].append("hook")
    assert hooks[key] == ["hook"] and other not in hooks and hooks.get(other) is None
    assert (other, []) not in hooks.items() and other not in hooks
    hooks["name"].append("by name")
    assert hooks.get("other") is None and "other" not in hooks and list(hooks.values()) == [["hook"], ["by name"]]


def test_set_api() -> None:
    a, b, c = parameters(3)
    members = WeakIdSet([a])
    members.add(b)
    members.add(b)
    members.update([c])
    assert len(members) == 3 and ids(members) == ids({a, b, c})
    members.discard(c)
    members.remove(b)
    with pytest.raises(KeyError):
        members.remove(b)
    assert members.pop() is a and not members
    members.add(a)
    union = members | WeakIdSet([c])
    assert type(union) is set and set(map(id, union)) == {id(a), id(c)}
    with pytest.raises(KeyError, match="pop from an empty set"):
        WeakIdSet().pop()
    members.clear()
    assert not members


# --- the file users vendor ----------------------------------------------------------------------------


def test_every_vendored_part_is_stdlib_only_python39_syntax_and_runs_alone(tmp_path: Path) -> None:
    from fixes.parts import part_names
    from fixes.vendor import vendored_text

    for part in part_names():
        source = vendored_text([part])
        tree = ast.parse(source, feature_version=(3, 9))
        imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
        assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported
        assert not [node for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level], part
    (tmp_path / "vendored.py").write_text(vendored_text(["maps"]))
    script = "import vendored, gc\nclass K: pass\nk = K(); m = vendored.WeakIdMap({k: 1}); del k; gc.collect(); print(len(m))"
    done = subprocess.run([sys.executable, "-S", "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert done.stdout.strip() == "0", done.stderr


def test_a_map_only_copy_leaves_out_the_strict_map_and_a_strict_map_brings_the_map_it_builds_on(tmp_path: Path) -> None:
    from fixes.parts import parts_for
    from fixes.vendor import plan_copy, vendored_text

    assert parts_for(["WeakIdMap"]) == ("core", "maps") and "class StrictWeakIdMap(" not in vendored_text(["maps"])
    assert parts_for(["StrictWeakIdMap"]) == ("core", "maps", "strictmaps")
    (tmp_path / "vendored.py").write_text(vendored_text(["strictmaps"]))
    script = "import vendored\nm = vendored.StrictWeakIdMap()\ntry:\n    m[1] = 2\nexcept TypeError:\n    print(isinstance(m, vendored.WeakIdMap))"
    done = subprocess.run([sys.executable, "-S", "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert done.stdout.strip() == "True", done.stderr
    # A copy vendored before ``StrictWeakIdMap`` left ``maps`` names only ``maps`` but defines it: a fix that
    # adds another part keeps it, for the files that import it from there.
    old = vendored_text(["strictmaps"]).replace("# Parts: core, maps, strictmaps.", "# Parts: core, maps.")
    assert "# Parts: core, maps." in old
    (tmp_path / "_weakglobals_runtime.py").write_text(old)
    plan = plan_copy(tmp_path / "_weakglobals_runtime.py", ["sets"])
    assert plan.parts == ("core", "maps", "strictmaps", "sets") and "class StrictWeakIdMap(" in plan.text


# --- the code the codemod inlines ----------------------------------------------------------------------

RUNTIME_NAMES = ("StrictWeakIdMap", "StrictWeakIdSet", "WeakIdList", "WeakIdMap", "WeakIdSet", "WeakValueMap", "weak_cache", "weak_lru_cache")


@pytest.mark.parametrize("names", [[name] for name in RUNTIME_NAMES] + [list(RUNTIME_NAMES)], ids=[*RUNTIME_NAMES, "all"])
def test_every_inline_block_is_stdlib_only_python39_private_pyflakes_clean_and_runs_alone(names: list[str], tmp_path: Path) -> None:
    """What a module gets: code of 3.9's syntax importing the standard library only, binding nothing public
    (a star import of the module exports nothing new), that pyflakes finds nothing in, and that runs as the
    module's own code (no ``from __future__`` import) without site-packages."""
    from pyflakes.api import check
    from pyflakes.reporter import Reporter

    from fixes.inline import END, find_block
    from fixes.inline_code import inline_code

    code = inline_code(names)
    tree = ast.parse(code.text, feature_version=(3, 9))
    imported = {alias.name.split(".")[0] for node in tree.body if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in tree.body if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= set(sys.stdlib_module_names), imported
    bound = {name for node in tree.body for name in _bound_names(node)}
    assert bound and all(name.startswith("_") for name in bound), sorted(name for name in bound if not name.startswith("_"))
    assert not any(isinstance(node, ast.AnnAssign) for node in ast.walk(tree)), "an annotation would be evaluated"
    assert code.text.endswith(END + "\n") and find_block(code.text.splitlines(True)).names == tuple(sorted(names))
    messages = io.StringIO()
    assert check(code.text, "block.py", Reporter(messages, messages)) == 0, messages.getvalue()
    probe = "".join(f"assert isinstance({code.names[name]}, type) or callable({code.names[name]})\n" for name in names)
    (tmp_path / "fixed.py").write_text(code.text + probe)
    done = subprocess.run([sys.executable, "-S", "-c", "import fixed"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def _bound_names(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [alias.asname or alias.name for alias in node.names]
    if isinstance(node, ast.Assign):
        return [name.id for target in node.targets for name in ast.walk(target) if isinstance(name, ast.Name)]
    return []


def test_an_inline_map_frees_a_dropped_key_as_the_modules_own_code(tmp_path: Path) -> None:
    from fixes.inline_code import inline_code

    code = inline_code(["WeakIdMap"])
    script = "class K: pass\nk = K(); m = _WeakIdMap({k: 1}); del k\nimport gc; gc.collect(); print(len(m), type(m).__module__)\n"
    (tmp_path / "fixed.py").write_text(code.text + script)
    done = subprocess.run([sys.executable, "-S", "-c", "import fixed"], cwd=tmp_path, capture_output=True, text=True)
    assert done.stdout == "0 fixed\n", done.stderr


def test_a_map_only_fix_adds_at_most_300_lines_vendored_or_inline() -> None:
    """The size a reviewer reads (the issue's target: 355 vendored before it, 48 in DeepSpeed's own fix)."""
    from fixes.inline_code import inline_code
    from fixes.vendor import vendored_text

    assert vendored_text(["maps"]).count("\n") <= 300
    assert inline_code(["WeakIdMap"]).text.count("\n") + 2 <= 300  # with a blank line above it and one more below


def test_the_codemod_pages_size_table_is_what_the_code_measures() -> None:
    """docs/codemod.md's table of inline and vendored sizes, row by row, counted again from the code."""
    from fixes.inline_code import inline_code
    from fixes.parts import part_names, parts_for
    from fixes.vendor import vendored_text

    page = (Path(__file__).parent.parent / "docs" / "codemod.md").read_text()
    rows = re.findall(r"^\| (`(\w+)` only|`(\w+)`|everything) \| ([\d,]+)[^|]* \| ([\d,]+) \|$", page, flags=re.MULTILINE)
    assert len(rows) == 7, rows
    everything = sorted({name for names in part_names().values() for name in names})
    for _, only, one, inline, vendored in rows:
        names = [only or one] if only or one else everything
        measured = (inline_code(names).text.count("\n"), vendored_text(parts_for(names)).count("\n"))
        assert measured == (int(inline.replace(",", "")), int(vendored.replace(",", ""))), (names, measured)


# --- model-based checks ----------------------------------------------------------------------------

from hypothesis import HealthCheck, settings, strategies as st  # noqa: E402
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule  # noqa: E402

#: Keys of every kind users put in. Held weakly: modules, parameters, tensors (whose == is elementwise),
#: objects in a reference cycle (which die only when collected). Held as a dict holds them: values that
#: are equal across kinds (1, True, 1.0), None, strings, tuples, equal dataclasses, non-weakrefable objects.
WEAK_KINDS = {
    "module": lambda: nn.Identity(),
    "parameter": lambda: nn.Parameter(torch.zeros(2)),
    "tensor": lambda: torch.zeros(3),
    "cyclic": lambda: _cyclic(),
}
STRONG_KINDS = {
    "one": lambda: 1,
    "true": lambda: True,
    "float": lambda: 1.0,
    "none": lambda: None,
    "string": lambda: "name",
    "tuple": lambda: ("a", 1),
    "point": lambda: Point(1),
    "slotted": lambda: Slotted("s"),
}
KEY_KINDS = {**WEAK_KINDS, **STRONG_KINDS}


class Cyclic:
    """A plain object (held weakly) that refers to itself."""


WEAK_TYPES = (Cyclic, nn.Identity, nn.Parameter, torch.Tensor)


def _cyclic() -> Cyclic:
    key = Cyclic()
    key.itself = key  # type: ignore[attr-defined]
    return key


class _AgainstADict(RuleBasedStateMachine):
    """The container against a plain dict (set) that holds the same keys: the container must behave as it,
    except that a weakly held key the test drops leaves both. Random inserts, lookups, deletes, pops,
    clears, keys dropped (dying at once, or only when collected) and collections."""

    def __init__(self) -> None:
        super().__init__()
        gc.freeze()  # collections then scan only this run's objects, not all of torch (60x faster)
        self.alive: list[object] = []  # keys the test still holds
        self.model: dict[object, object] = {}  # what a dict would hold, minus dropped weak keys
        self.dying: list[int] = []  # ids of dropped cyclic keys: in the container until a collection

    def key(self, index: int) -> object:
        return self.alive[index % len(self.alive)]

    @rule(kind=st.sampled_from(sorted(KEY_KINDS)))
    def new_key(self, kind: str) -> None:
        self.alive.append(KEY_KINDS[kind]())

    @precondition(lambda self: self.alive)
    @rule(index=st.integers(min_value=0))
    def delete(self, index: int) -> None:
        key = self.key(index)
        self.remove(key)
        assert key not in self.container  # type: ignore[attr-defined]

    @precondition(lambda self: self.alive)
    @rule(index=st.integers(min_value=0))
    def drop_key(self, index: int) -> None:
        key = self.alive.pop(index % len(self.alive))
        if type(key) in WEAK_TYPES and key in self.model:
            if isinstance(key, Cyclic):
                self.dying.append(id(key))  # unreachable but not yet collected: may still be iterated
            del self.model[key]  # a weakly held key: gone from the container once it dies
        del key

    def teardown(self) -> None:
        gc.unfreeze()

    @rule()
    def collect(self) -> None:
        gc.collect()
        self.dying.clear()

    @rule()
    def clear(self) -> None:
        self.container.clear()  # type: ignore[attr-defined]
        self.model.clear()
        self.dying.clear()

    @invariant()
    def same_live_contents(self) -> None:
        contents = {id(key): key for key in self.container}  # type: ignore[attr-defined]
        assert set(ids(self.model)) <= set(contents) <= set(ids(self.model)) | set(self.dying)
        if not self.dying:
            assert len(self.container) == len(self.model)  # type: ignore[attr-defined,arg-type]
        for key in self.alive:
            assert (key in self.container) == (key in self.model)  # type: ignore[attr-defined,operator]


class MapAgainstADict(_AgainstADict):
    def __init__(self) -> None:
        super().__init__()
        self.container: WeakIdMap[object, int] = WeakIdMap()

    def remove(self, key: object) -> None:
        assert self.container.pop(key, None) == self.model.pop(key, None)

    @precondition(lambda self: self.alive)
    @rule(index=st.integers(min_value=0), value=st.integers())
    def put(self, index: int, value: int) -> None:
        key = self.key(index)
        self.container[key] = value
        self.model[key] = value

    @precondition(lambda self: self.alive)
    @rule(index=st.integers(min_value=0))
    def look_up(self, index: int) -> None:
        key = self.key(index)
        assert self.container.get(key, "absent") == self.model.get(key, "absent")
        if key in self.model:
            assert self.container[key] == self.model[key]
        else:
            with pytest.raises(KeyError):
                self.container[key]

    @precondition(lambda self: not self.dying)
    @rule()
    def pop_item(self) -> None:
        if self.model:
            assert ids(self.container.popitem()) == ids(self.model.popitem())
        else:
            with pytest.raises(KeyError):
                self.container.popitem()

    @precondition(lambda self: not self.dying)
    @rule()
    def print_it(self) -> None:
        assert repr(self.container) == repr(self.model)

    @invariant()
    def same_order_and_values(self) -> None:
        items = [(key, value) for key, value in self.container.items() if id(key) not in self.dying]
        assert [(id(key), value) for key, value in items] == [(id(key), value) for key, value in self.model.items()]
        assert ids(reversed(self.container)) == ids(reversed([key for key, _ in self.container.items()]))


class SetAgainstASet(_AgainstADict):
    """Also the order: the program's set, through the same adds and discards (and the discard of each key
    when it is collected), iterates, prints and pops as the container. It holds a weak reference for each
    weakly held key (its hash is the key's), so that the test keeps no key alive."""

    def __init__(self) -> None:
        super().__init__()
        self.container: WeakIdSet[object] = WeakIdSet()
        self.table: set[object] = set()  # the program's set, with ``weakref.ref(key)`` for weakly held keys
        self.dying_refs: list[weakref.ref] = []

    def stand_in(self, key: object) -> object:
        return weakref.ref(key) if type(key) in WEAK_TYPES else key

    def remove(self, key: object) -> None:
        self.container.discard(key)
        self.model.pop(key, None)
        self.table.discard(self.stand_in(key))

    @precondition(lambda self: self.alive)
    @rule(index=st.integers(min_value=0))
    def add(self, index: int) -> None:
        key = self.key(index)
        self.container.add(key)
        self.model.setdefault(key, None)
        self.table.add(self.stand_in(key))

    @precondition(lambda self: self.alive)
    @rule(index=st.integers(min_value=0))
    def drop_key(self, index: int) -> None:
        key = self.alive[index % len(self.alive)]
        if type(key) in WEAK_TYPES and key in self.model:
            if isinstance(key, Cyclic):
                self.dying_refs.append(weakref.ref(key))
            else:
                self.table.discard(weakref.ref(key))  # it dies now
        del key
        super().drop_key(index)

    @rule()
    def collect(self) -> None:
        super().collect()
        for ref in self.dying_refs:
            self.table.discard(ref)
        self.dying_refs.clear()

    @rule()
    def clear(self) -> None:
        super().clear()
        self.table.clear()
        self.dying_refs.clear()

    @rule()
    def pop(self) -> None:
        # Guarded here, not by a precondition: which element a set pops follows the keys' hashes, which
        # are addresses, so what is left to pop differs from run to run, and hypothesis requires the rules
        # it may draw to depend only on what it drew (FlakyStrategyDefinition otherwise).
        if self.dying:
            return
        if not self.model:
            with pytest.raises(KeyError):
                self.container.pop()
            return
        got, slot = self.container.pop(), self.table.pop()
        assert got is (slot() if type(slot) is weakref.ref else slot), "the element the set's pop takes"
        self.model.pop(got)

    @precondition(lambda self: not self.dying)
    @invariant()
    def same_order_as_the_programs_set(self) -> None:
        order = [slot() if type(slot) is weakref.ref else slot for slot in self.table]
        assert ids(self.container) == ids(order), "the set's own order"
        assert repr(self.container) == (repr(order)[1:-1].join("{}") if order else "set()")
        assert set(ids(self.container | {None})) == set(ids(order) + [id(None)])


#: The same runs on every machine and every run: derandomized, no example database to replay from, and no
#: health check that times how long drawing took. Every rule's precondition reads state that the draws alone
#: decide (the set's ``pop``, which follows addresses, guards itself instead), so a replayed draw takes the
#: same rules (hypothesis raises FlakyStrategyDefinition otherwise).
_MODEL_SETTINGS = settings(
    max_examples=60, stateful_step_count=40, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
MapAgainstADict.TestCase.settings = _MODEL_SETTINGS
SetAgainstASet.TestCase.settings = _MODEL_SETTINGS
test_weak_id_map_against_a_dict = MapAgainstADict.TestCase
test_weak_id_set_against_a_set = SetAgainstASet.TestCase
