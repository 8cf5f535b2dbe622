"""The runtime's guarantees, each tested with real torch objects where torch is what users put in it."""
from __future__ import annotations

import ast
import copy
import gc
import pickle
import random
import subprocess
import sys
import threading
import tracemalloc
import weakref
from pathlib import Path

import pytest
import torch
from torch import nn

import flake8_weakglobals.runtime as runtime_module
from flake8_weakglobals.runtime import WeakIdMap, WeakIdSet


class Hostile:
    """Every instance hashes alike and refuses to be compared: only identity may be used."""

    def __hash__(self) -> int:
        return 1

    def __eq__(self, other: object) -> bool:
        raise AssertionError("keys must never be compared with ==")


def parameters(count: int) -> list[nn.Parameter]:
    return [nn.Parameter(torch.randn(4, 4)) for _ in range(count)]


# --- identity, never == or __hash__ ---------------------------------------------------------------


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


def test_keys_whose_hash_collides_and_eq_raises_work() -> None:
    keys = [Hostile() for _ in range(50)]
    store = WeakIdMap((key, index) for index, key in enumerate(keys))
    assert [store[key] for key in keys] == list(range(50))
    del store[keys[10]]
    assert keys[10] not in store and keys[11] in store
    members = WeakIdSet(keys)
    assert all(key in members for key in keys)
    assert store == WeakIdMap(store.items()) and members == WeakIdSet(keys)


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


def test_a_stale_entry_under_a_reused_id_is_never_a_hit() -> None:
    """A removal callback that never ran leaves a dead entry; a new object with that id must miss."""
    store = WeakIdMap()
    doomed = nn.Linear(2, 2)
    store[doomed] = "stale"
    dead_entry = store._data.pop(id(doomed))
    del doomed
    gc.collect()
    assert dead_entry() is None

    newcomer = nn.Linear(2, 2)
    store._data[id(newcomer)] = dead_entry  # what a lost callback plus id reuse leaves behind
    assert newcomer not in store
    assert store.get(newcomer, "missing") == "missing"
    with pytest.raises(KeyError):
        store[newcomer]
    store[newcomer] = "fresh"
    assert store[newcomer] == "fresh"


def test_container_never_keeps_itself_alive() -> None:
    key = nn.Linear(2, 2)
    gc.disable()
    try:
        store, members = WeakIdMap({key: 1}), WeakIdSet([key])
        refs = weakref.ref(store), weakref.ref(members)
        del store, members
        assert refs[0]() is None and refs[1]() is None, "freed by reference counting alone"
    finally:
        gc.enable()
    assert weakref.getweakrefcount(key) == 0


def test_overwriting_a_key_keeps_one_weak_reference() -> None:
    key = nn.Linear(2, 2)
    store = WeakIdMap()
    for value in range(100):
        store[key] = value
    assert weakref.getweakrefcount(key) == 1 and store[key] == 99


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


# --- iteration, threads -----------------------------------------------------------------------------


def test_keys_dying_during_iteration_never_raise() -> None:
    for make in (lambda keys: WeakIdMap.fromkeys(keys, 0), WeakIdSet):
        keys = [nn.Linear(2, 2) for _ in range(100)]
        container = make(keys)
        visited = []
        for key in container:
            visited.append(type(key))
            keys.clear()  # every other key dies in the first iteration
            gc.collect()
        del key
        gc.collect()
        assert visited == [nn.Linear] and len(container) == 0


def test_threads_inserting_reading_deleting_and_dropping_keys() -> None:
    store: WeakIdMap[nn.Module, int] = WeakIdMap()
    errors: list[BaseException] = []

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        mine: list[nn.Module] = []
        try:
            for step in range(3000):
                action = rng.random()
                if action < 0.4 or not mine:
                    mine.append(nn.Identity())
                    store[mine[-1]] = step
                elif action < 0.7:
                    key = rng.choice(mine)
                    assert store.get(key, step) is not None and (key in store) in (True, False)
                elif action < 0.85:
                    store.pop(mine.pop(rng.randrange(len(mine))), None)
                else:
                    mine.pop(rng.randrange(len(mine)))  # dropped: the entry must go by itself
                if step % 500 == 0:
                    gc.collect()
                    list(store.items())
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


# --- keys that cannot be weakly referenced, torch resurrection ----------------------------------


@pytest.mark.parametrize("key", [1, "name", ("a", 1), None])
def test_keys_that_cannot_be_weakly_referenced(key: object) -> None:
    store = WeakIdMap()
    with pytest.raises(TypeError, match="keys must be weak-referenceable"):
        store[key] = 1
    with pytest.raises(TypeError, match="keys must be weak-referenceable"):
        WeakIdSet().add(key)
    assert key not in store and store.get(key, "default") == "default"
    with pytest.raises(KeyError):
        store[key]


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


def test_pickling_is_refused_with_a_clear_message() -> None:
    for container in (WeakIdMap(), WeakIdSet()):
        with pytest.raises(TypeError, match="cannot pickle .*weak references"):
            pickle.dumps(container)


def test_copy_and_deepcopy() -> None:
    key = nn.Linear(2, 2)
    store = WeakIdMap({key: [1, 2]}, default_factory=list)
    shallow, deep = copy.copy(store), copy.deepcopy(store)
    assert shallow[key] is store[key] and shallow.default_factory is list
    assert deep[key] == [1, 2] and deep[key] is not store[key]
    assert next(iter(deep)) is key, "deepcopy keeps the keys, like WeakKeyDictionary"
    members = WeakIdSet([key])
    assert list(copy.deepcopy(members)) == [key] and members.copy() == members


def test_equality_is_by_key_identity_and_value_equality() -> None:
    first, second = nn.Linear(2, 2), nn.Linear(2, 2)
    store = WeakIdMap({first: 1, second: 2})
    assert store == {first: 1, second: 2} and store == WeakIdMap({second: 2, first: 1})
    assert store != {first: 1, second: 3} and store != {first: 1}
    assert WeakIdMap() == {} and store != [first, second]
    assert WeakIdSet([first]) == {first} and WeakIdSet([first]) != {second}
    with pytest.raises(TypeError):
        hash(store)


def test_repr_names_the_count_and_the_first_entries() -> None:
    keys = [nn.Linear(2, 2) for _ in range(7)]
    text = repr(WeakIdMap((key, f"layer{index}") for index, key in enumerate(keys)))
    assert text.startswith("WeakIdMap(7 entries: {<Linear at 0x") and "'layer4'" in text
    assert "'layer5'" not in text and text.endswith(", ...})")
    assert repr(WeakIdSet(keys[:1])).startswith("WeakIdSet(1 entries: {<Linear at 0x")


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
    with pytest.raises(TypeError):
        store.update(x=1)  # type: ignore[call-arg]
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


def test_set_api() -> None:
    a, b, c = parameters(3)
    members = WeakIdSet([a])
    members.add(b)
    members.add(b)
    members.update([c])
    assert len(members) == 3 and list(members) == [a, b, c]
    members.discard(c)
    members.remove(b)
    with pytest.raises(KeyError):
        members.remove(b)
    union = members | WeakIdSet([c])
    assert isinstance(union, WeakIdSet) and set(map(id, union)) == {id(a), id(c)}
    members.clear()
    assert not members


# --- the file users vendor ----------------------------------------------------------------------------


def test_runtime_is_stdlib_only_python39_syntax_and_runs_alone(tmp_path: Path) -> None:
    source = Path(runtime_module.__file__).read_text()
    tree = ast.parse(source, feature_version=(3, 9))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported
    (tmp_path / "vendored.py").write_text(source)
    script = "import vendored, gc\nclass K: pass\nk = K(); m = vendored.WeakIdMap({k: 1}); del k; gc.collect(); print(len(m))"
    done = subprocess.run([sys.executable, "-S", "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert done.stdout.strip() == "0", done.stderr


# --- model-based checks ----------------------------------------------------------------------------

from hypothesis import settings, strategies as st  # noqa: E402
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule  # noqa: E402

#: Keys of every kind users put in: modules, parameters, tensors (whose == is elementwise), objects whose
#: hash collides and == raises, and objects in a reference cycle (which die only when collected).
KEY_KINDS = {
    "module": lambda: nn.Identity(),
    "parameter": lambda: nn.Parameter(torch.zeros(2)),
    "tensor": lambda: torch.zeros(3),
    "hostile": Hostile,
    "cyclic": lambda: _cyclic(),
}


def _cyclic() -> Hostile:
    key = Hostile()
    key.itself = key  # type: ignore[attr-defined]
    return key


class _AgainstAnIdentityModel(RuleBasedStateMachine):
    """The container against a plain dict keyed by ``id()`` that holds the live keys: random inserts,
    lookups, deletes, clears, keys dropped (dying at once, or only when collected) and collections."""

    def __init__(self) -> None:
        super().__init__()
        gc.freeze()  # collections then scan only this run's objects, not all of torch (60x faster)
        self.alive: list[object] = []  # keys the test still holds
        self.model: dict[int, tuple[object, object]] = {}  # id -> (key, value) for live keys in the container
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
        assert id(key) not in [id(k) for k in self.contents()]

    @precondition(lambda self: self.alive)
    @rule(index=st.integers(min_value=0))
    def drop_key(self, index: int) -> None:
        key = self.alive.pop(index % len(self.alive))
        if getattr(key, "itself", None) is not None and id(key) in self.model:
            self.dying.append(id(key))  # unreachable but not yet collected: may still be iterated
        self.model.pop(id(key), None)
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
        contents = {id(key): key for key in self.contents()}
        assert set(self.model) <= set(contents) <= set(self.model) | set(self.dying)
        if not self.dying:
            assert len(self.container) == len(self.model)  # type: ignore[attr-defined,arg-type]
        for key in self.alive:
            assert (key in self.container) == (id(key) in self.model)  # type: ignore[attr-defined,operator]


class MapAgainstAModel(_AgainstAnIdentityModel):
    def __init__(self) -> None:
        super().__init__()
        self.container: WeakIdMap[object, int] = WeakIdMap()

    def contents(self) -> list[object]:
        return list(self.container)

    def remove(self, key: object) -> None:
        expected = self.model.pop(id(key), None)
        assert self.container.pop(key, None) == (None if expected is None else expected[1])

    @precondition(lambda self: self.alive)
    @rule(index=st.integers(min_value=0), value=st.integers())
    def put(self, index: int, value: int) -> None:
        key = self.key(index)
        self.container[key] = value
        self.model[id(key)] = (key, value)

    @precondition(lambda self: self.alive)
    @rule(index=st.integers(min_value=0))
    def look_up(self, index: int) -> None:
        key = self.key(index)
        expected = self.model.get(id(key))
        assert self.container.get(key, "absent") == ("absent" if expected is None else expected[1])
        if expected is None:
            with pytest.raises(KeyError):
                self.container[key]
        else:
            assert self.container[key] == expected[1]

    @invariant()
    def same_values(self) -> None:
        for key, value in self.container.items():
            if id(key) in self.model:
                assert self.model[id(key)] == (key, value)


class SetAgainstAModel(_AgainstAnIdentityModel):
    def __init__(self) -> None:
        super().__init__()
        self.container: WeakIdSet[object] = WeakIdSet()

    def contents(self) -> list[object]:
        return list(self.container)

    def remove(self, key: object) -> None:
        self.container.discard(key)
        self.model.pop(id(key), None)

    @precondition(lambda self: self.alive)
    @rule(index=st.integers(min_value=0))
    def add(self, index: int) -> None:
        key = self.key(index)
        self.container.add(key)
        self.model[id(key)] = (key, None)


_MODEL_SETTINGS = settings(max_examples=60, stateful_step_count=40, deadline=None)
MapAgainstAModel.TestCase.settings = _MODEL_SETTINGS
SetAgainstAModel.TestCase.settings = _MODEL_SETTINGS
test_weak_id_map_against_an_identity_model = MapAgainstAModel.TestCase
test_weak_id_set_against_an_identity_model = SetAgainstAModel.TestCase
