"""The runtime census (``flake8_weakglobals/census/``) and ``pytest --weakglobals`` on real modules and
tensors: the pins it must find (DeepSpeed 0.19.6's two maps, an ``lru_cache``d ``forward``), each with
the static finding it confirms, the pins it must not report (import-time workspaces, locals, ``WeakIdMap``,
objects older than the test), and the promises of the walk (no user code runs, nothing is kept alive)."""
from __future__ import annotations

import ast
import gc
import json
import os
import re
import shutil
import subprocess
import sys
import weakref
from pathlib import Path
from typing import Any, Iterator

import pytest
import torch
from torch import nn

from conftest import REPO, installed_package
from flake8_weakglobals.census import new_objects
from flake8_weakglobals.census.measure import Census, census, compare
from test_deepspeed_proof import rewritten_copy  # noqa: F401  # the fixture: deepspeed rewritten by the codemod

pytest_plugins = ["pytester"]
HERE = Path(__file__).parent
CENSUS = HERE / "census"
MIB = 2**20


@pytest.fixture
def demo(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """``tests/census/census_demo`` importable, and its long-lived state emptied again after the test."""
    monkeypatch.syspath_prepend(str(CENSUS))
    import census_demo.compiled
    import census_demo.hostile
    import census_demo.loaderish
    import census_demo.names
    import census_demo.rotary
    import census_demo.shapes
    import census_demo.shared
    import census_demo.workspace

    yield census_demo
    census_demo.shapes.forget()
    census_demo.shared.forget()
    torch._dynamo.reset()
    census_demo.names.module_names.clear()
    census_demo.names.weak_names.clear()
    census_demo.rotary.RotaryEmbedding.forward.cache_clear()
    census_demo.hostile.registry.clear()
    census_demo.loaderish.forget()
    del census_demo.workspace.WORKSPACE[1:]


def containers(report: Any) -> dict[str, tuple[int, int, str]]:
    """``{container: (objects, bytes, what it confirms)}``."""
    return {item.name: (len(item.pins), item.nbytes, str(item.confirms)) for item in report.containers()}


def census_summary(result: pytest.RunResult) -> list[str]:
    """The lines of the census's own section, addresses written as 0x...

    The section ends where pytest's short test summary begins: with ``CI`` set, pytest prints each error's whole
    message there, so a pin's lines appear twice in the output of ``--weakglobals=fail``."""
    text = result.stdout.str().split("weakglobals census =", 1)[1].split("short test summary info", 1)[0]
    return [re.sub(r"0x[0-9a-f]+", "0x...", line) for line in text.splitlines()[1:]]


# --- what it finds, with the finding it confirms ---

@pytest.mark.parametrize("variant", ["original", "rewritten"])
def test_deepspeed_maps_pin_the_replaced_blocks_until_the_codemod_fixes_them(variant: str, rewritten_copy: Path) -> None:  # noqa: F811
    """DeepSpeed 0.19.6's ``debug.py``: extract the names of a 16-block model of 64 MiB, replace every block
    (the proof's own scenario), in a fresh interpreter. Both maps pin the 16 replaced blocks (64 MiB, one
    storage each, counted once for both maps); ``module_names`` also pins the model itself, with its 16 new
    blocks, which the test's end would otherwise free. After the codemod: nothing."""
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    if variant == "rewritten":
        environment["PYTHONPATH"] = str(rewritten_copy)
    done = subprocess.run([sys.executable, str(CENSUS / "deepspeed_census.py")], capture_output=True, text=True,
                          env=environment, cwd=rewritten_copy.parent)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    source = rewritten_copy / "deepspeed" if variant == "rewritten" else installed_package("deepspeed")
    assert Path(result["debug_file"]) == source / "utils" / "debug.py"
    if variant == "rewritten":
        assert (result["containers"], result["total_mib"], result["leak"]["resident_mib"]) == ([], 0.0, 0.0)
        return
    modules, params = result["containers"]
    assert modules["name"] == "deepspeed.utils.debug.module_names" and modules["confirms"] == "WG001 at deepspeed/utils/debug.py:12"
    assert params["name"] == "deepspeed.utils.debug.param_names" and params["confirms"] == "WG001 at deepspeed/utils/debug.py:13"
    assert params["kinds"] == {"Parameter": 16} and params["mib"] == 64.0 and params["pins_mib"] == [4.0] * 16
    assert modules["kinds"] == {"Sequential": 1, "Linear": 16} and modules["pins_mib"] == [64.0] + [4.0] * 16
    assert modules["mib"] == 128.0 and set(params["storages"]) < set(modules["storages"])
    assert result["total_mib"] == 128.0 and result["leak"]["resident_mib"] == 64.0
    assert "deepspeed.utils.debug.module_names[<Linear at 0x" in "\n".join(result["report"])


def test_a_dict_pins_what_the_same_map_as_a_weak_id_map_does_not(demo: Any) -> None:
    with census(["census_demo"]) as report:
        model = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 32))
        demo.names.record(model)
    assert containers(report) == {"census_demo.names.module_names": (4, 2 * (32 * 32 + 32) * 4, "WG001 at census_demo/names.py:9")}
    assert {pin.path.split(" at ")[0] for pin in report.pins} == {
        f"census_demo.names.module_names[<{kind}" for kind in ("Sequential", "Linear", "ReLU")
    }
    demo.names.module_names.clear()
    with census(["census_demo"]) as report:
        model = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 32))
        demo.names.record_weakly(model)
    assert len(demo.names.weak_names) == 4 and report.pins == []  # in the map, alive (a local holds it), not pinned


def test_an_lru_cached_forward_is_reported_with_its_wg006_and_not_after_the_fix(
    demo: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with census(["census_demo"]) as report:
        rotary = demo.rotary.RotaryEmbedding(64)
        cos, sin = rotary(128)
    container = "census_demo.rotary.RotaryEmbedding.forward <lru_cache>"
    outputs = 2 * 128 * 32 * 4
    assert containers(report) == {container: (3, 32 * 4 + outputs, "WG006 at census_demo/rotary.py:16")}
    paths = {pin.kind: pin.path for pin in report.pins}
    assert paths["RotaryEmbedding"] == f"{container}[(<RotaryEmbedding at {id(rotary):#x}>, 128)][0]"
    assert report.pins[0].root == "census_demo.rotary.RotaryEmbedding.forward"

    fixed = tmp_path / "census_demo_fixed"
    fixed.mkdir()
    shutil.copy(CENSUS / "census_demo" / "rotary.py", fixed / "rotary.py")
    (fixed / "__init__.py").write_text("")
    done = subprocess.run([sys.executable, "-m", "fixes.apply", "--unsafe-fixes", "--runtime", "import", "census_demo_fixed"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert "WG006 RotaryEmbedding.forward" in done.stdout, done.stdout + done.stderr
    monkeypatch.syspath_prepend(str(tmp_path))
    from census_demo_fixed.rotary import RotaryEmbedding

    with census(["census_demo_fixed"]) as report:
        rotary = RotaryEmbedding(64)
        # still cached, the same values: to the last bits only within a tolerance, since two runs of torch's
        # vectorised cos need not round alike (a fresh machine's run differed in the last place once)
        torch.testing.assert_close(rotary(128)[0], cos)
        assert rotary(128) is rotary(128)
    assert report.pins == []


def test_a_cache_reached_through_an_importing_module_is_named_where_the_linter_reports_it() -> None:
    """torch's own WG006 (the sweep's ``assert_and_get_unique_device``): ``convert.py`` imports it from
    ``utils.py``, and the census names it in ``utils``, confirming the linter's finding there."""
    from torch.ao.quantization.fx import convert  # noqa: F401  # imports the cached function too
    from torch.ao.quantization.fx.utils import assert_and_get_unique_device

    try:
        with census(["torch.ao.quantization"]) as report:
            assert_and_get_unique_device(nn.Linear(16, 16))
    finally:
        assert_and_get_unique_device.cache_clear()
    name = "torch.ao.quantization.fx.utils.assert_and_get_unique_device <lru_cache>"
    assert containers(report) == {name: (1, (16 * 16 + 16) * 4, "WG006 at torch/ao/quantization/fx/utils.py:250")}


def test_every_container_that_holds_an_object_lists_it_once_with_its_own_path(demo: Any) -> None:
    with census(["census_demo"]) as report:
        model = nn.Linear(8, 8)
        demo.shared.keep_everywhere(model)
    address = f"{id(model):#x}"
    assert sorted(pin.path for pin in report.pins) == [
        "census_demo.shared.BY_MODULE[<Linear at " + address + ">]",  # one pin for the map, though it holds it twice
        "census_demo.shared.BY_NAME['first']",
        "census_demo.shared.CURRENT",
        "census_demo.shared.HISTORY[0][1]",
        "census_demo.shared.LAST",
        "census_demo.shared.RECENT[0][1]",  # through the tuple HISTORY holds too
    ]
    assert {pin.identity for pin in report.pins} == {f"{os.getpid()}:{address}"} and report.nbytes == (8 * 8 + 8) * 4
    assert report.lines()[0].startswith("weakglobals census of census_demo: 6 containers hold 1 object created by 1 test")


_STEP = re.compile(r"\.(?P<name>\w+)|\[(?P<item>[^\]]*)\]|\{(?P<member>[^}]*)\}| <(?P<label>closure|defaults)>")


def evaluate(path: str) -> list[Any]:
    """Every object ``path`` can name, read as a reader reads it: its longest prefix that is an imported
    module, then attributes, items (``[<Linear at 0x…>]`` is the key of that address, or the value under
    it), set members, closures and defaults; a closure's cell reads as its contents."""
    parts = path.split(".")
    root = next(n for n in range(len(parts), 0, -1) if ".".join(parts[:n]) in sys.modules)
    rest = path[len(".".join(parts[:root])):]
    found: list[Any] = [sys.modules[".".join(parts[:root])]]
    position = 0
    while position < len(rest):
        step = _STEP.match(rest, position)
        assert step is not None, f"{path!r}: cannot read from {rest[position:]!r}"
        position = step.end()
        found = [child for parent in found for child in _children(parent, step)]
        found += [cell.cell_contents for cell in found if type(cell).__name__ == "cell"]
    return found


def _children(parent: Any, step: re.Match[str]) -> list[Any]:
    name, item, member, label = step["name"], step["item"], step["member"], step["label"]
    if name is not None:
        namespace = parent.__dict__ if hasattr(parent, "__dict__") else {}
        return [namespace[name]] if name in namespace else [getattr(parent, name)] if hasattr(parent, name) else []
    if label is not None:
        return [parent.__closure__] if label == "closure" else [d for d in (parent.__defaults__, parent.__kwdefaults__) if d is not None]
    wanted = item if item is not None else member
    by_address = re.fullmatch(r"<[\w.]+ at (0x[0-9a-f]+)>", wanted)
    if isinstance(parent, dict):
        keys = [key for key in parent if (id(key) == int(by_address[1], 16) if by_address else key == ast.literal_eval(wanted))]
        return [found for key in keys for found in (key, parent[key])]
    if isinstance(parent, (list, tuple)) and item is not None:
        return [parent[int(item)]]
    if isinstance(parent, (set, frozenset)) and by_address:
        return [element for element in parent if id(element) == int(by_address[1], 16)]
    return []


def test_every_printed_path_evaluates_to_the_object_it_names(demo: Any) -> None:
    with census(["census_demo"]) as report:
        model = nn.Linear(4, 4)
        demo.shapes.keep_every_way(model)
        demo.shared.keep_everywhere(model)
    paths = sorted(pin.path for pin in report.pins)
    assert len(paths) >= 12, paths
    for path in paths:
        assert any(found is model for found in evaluate(path)), f"{path} does not reach the object it names"


def test_a_mocks_records_of_its_calls_are_one_container(demo: Any) -> None:
    """A ``Mock`` keeps its arguments in ``call_args``, ``call_args_list`` and ``mock_calls``: one holder."""
    with census(["census_demo"]) as report:
        first, second = nn.Linear(2, 2), nn.Linear(3, 3)
        demo.shapes.RECORDER(first)
        demo.shapes.RECORDER(second)
    assert containers(report) == {"census_demo.shapes.RECORDER": (2, (2 * 2 + 2 + 3 * 3 + 3) * 4, "None")}


def test_torch_compiles_own_globals_are_one_intended_container(demo: Any) -> None:
    """What torch.compile keeps in the compiled module's globals is torch's own: one container per global,
    however many attributes lead on from it, said to be intended (never a failure, never a miss)."""
    with census(["census_demo"]) as report:
        demo.compiled.run_compiled()
    found = report.containers()
    assert [container.name.rpartition(".")[2].startswith("__compiled_fn_") for container in found] == [True], [c.name for c in found]
    assert found[0].intended.startswith("intended: a graph torch.compile installed") and "torch._dynamo.reset()" in found[0].intended


def test_tied_and_viewed_storage_is_counted_once(demo: Any) -> None:
    with census(["census_demo"]) as report:
        first, second = nn.Linear(64, 64, bias=False), nn.Linear(64, 64, bias=False)
        second.weight = first.weight
        demo.names.record(nn.Sequential(first, second))
        demo.workspace.WORKSPACE.append(first.weight.detach()[:8])  # a view: the same storage once more
    weight = 64 * 64 * 4
    assert [pin.nbytes for pin in report.pins] == [weight] * 4
    assert containers(report)["census_demo.names.module_names"][1] == weight and report.nbytes == weight


# --- what it must not report ---

def test_a_workspace_allocated_at_import_is_not_the_tests(demo: Any) -> None:
    with census(["census_demo"]) as report:
        demo.workspace.accumulate(torch.ones(16))
    assert report.pins == []
    with census(["census_demo"]) as report:  # the same container holding a tensor the test made is a pin
        demo.workspace.WORKSPACE.append(torch.ones(16))
    assert [pin.path for pin in report.pins] == ["census_demo.workspace.WORKSPACE[1]"]


def test_a_model_held_by_a_local_only_is_not_a_pin(demo: Any) -> None:
    with census(["census_demo"]) as report:
        model = nn.Linear(128, 128)
        model(torch.ones(128)).sum().backward()
        alive = weakref.ref(model)
    assert alive() is not None and report.pins == []  # alive during the census: the walk ran and found no root


def test_a_remembered_address_is_old_only_while_it_reaches_the_same_object() -> None:
    """The check that decides "alive before the census", with forged addresses: the census remembers each
    framework object under its id with a weak reference; an id whose reference reaches another object (or
    none) is an address some older object left to a new one, so the object there is new."""
    kept, successor, gone = nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 4)
    dead = weakref.ref(gone)
    del gone
    assert dead() is None
    alive = {id(kept): weakref.ref(kept), id(successor): weakref.ref(nn.Linear(4, 4))}  # another object lived there
    ids, _, same = compare([kept, successor], alive)
    assert ids == [id(kept), id(successor)] and same == [True, False]
    assert compare([successor], {id(successor): dead})[2] == [False]  # the object remembered there died
    assert compare([successor], {})[2] == [False]  # never seen


def test_objects_alive_before_the_census_are_not_its_own_even_at_a_reused_address(demo: Any) -> None:
    """Where the census lists the whole heap and compares it with what it remembers (where ``gc.freeze``
    cannot hide the old objects)."""
    older, model = nn.Linear(4, 4), nn.Sequential()
    engine = Census(["census_demo"], whole_heap=True)
    engine.start()  # (the whole-heap path freezes nothing: no close needed)
    demo.names.record(older)
    demo.names.record(model)
    model.append(nn.Linear(4, 4))  # new, but inside a module older than the census: that module's business
    assert engine.check().pins == []
    del model
    demo.names.module_names.clear()
    reused = nn.Linear(4, 4)
    # The state CPython leaves when ``older`` dies and ``reused`` gets its address (it often does, but
    # nothing guarantees it): the census remembers ``older`` under the address ``reused`` now has.
    engine._alive[id(reused)] = engine._alive.pop(id(older))
    del older
    demo.names.record(reused)
    assert [pin.path for pin in engine.check("t").pins] == [f"census_demo.names.module_names[<Linear at {id(reused):#x}>]"]


# --- the walk's promises ---

def test_the_walk_runs_no_user_code(demo: Any) -> None:
    hostile = demo.hostile
    with census(["census_demo"]) as report:
        model = nn.Linear(8, 8)
        hostile.registry[hostile.Hostile()] = hostile.Hostile(payload=hostile.HostileList([model]))
        hostile.CALLS.clear()  # inserting called __hash__; the census must call nothing
    assert hostile.CALLS == []
    (pin,) = report.pins
    assert pin.path.startswith("census_demo.hostile.registry[<Hostile at 0x") and pin.path.endswith(">].payload[0]")
    assert pin.confirms is None and "not reported by the linter" in "\n".join(report.lines())


def test_the_import_systems_names_are_no_route_into_a_module(demo: Any) -> None:
    """``__loader__``, ``__spec__`` and ``__builtins__`` are the import system's, not the module's state: a
    layer only the loader holds is no pin, the same layer in the module's own list is."""
    with census(["census_demo"]) as report:
        demo.loaderish.fill(nn.Linear(2, 2))
    assert [pin.path for pin in report.pins] == ["census_demo.loaderish.keep[0]"]


def test_the_census_keeps_nothing_alive(demo: Any) -> None:
    """As the plugin runs it: one engine for the whole session, alive while the objects must die."""
    engine = Census(["census_demo"])
    before = nn.Linear(8, 8)
    gone_before = weakref.ref(before)
    engine.start()
    del before  # alive when the census started: it must not hold it
    model = nn.Sequential(nn.Linear(8, 8))
    demo.names.record(model)
    pinned = [weakref.ref(module) for module in model.modules()]
    del model
    report = engine.finish("t")
    assert len(report.pins) == 2 and engine.started
    demo.names.module_names.clear()
    gc.collect()
    engine.close()
    assert gone_before() is None and [ref() for ref in pinned] == [None, None]


# --- what is new, listed at the cost of what is new (new_objects.py) ---

class _Node:
    """An object that can sit in a reference cycle and be watched by a weak reference."""


def test_a_census_lists_only_what_was_created_since_it_started(demo: Any) -> None:
    """The freeze hides what was alive before: the listing holds the new layer, not the old workspace."""
    engine = Census(["census_demo"])
    engine.start()
    try:
        made = nn.Linear(2, 2)
        listing = new_objects.listed()
        assert listing is not None
        assert any(obj is made for obj in listing)
        assert not any(obj is demo.workspace.WORKSPACE for obj in listing)
        assert len(listing) < len(demo.workspace.__dict__) + 10_000  # what is new, not the heap's 100,000s
    finally:
        engine.close()


def test_a_full_collection_inside_a_census_frees_old_cycles_as_without_it(demo: Any) -> None:
    """A cycle made before the census and dropped during it dies at ``gc.collect()``, frozen or not."""
    node = _Node()
    node.itself = node  # type: ignore[attr-defined]
    watched = weakref.ref(node)
    engine = Census(["census_demo"])
    engine.start()
    try:
        del node
        gc.collect()
        assert watched() is None
    finally:
        engine.close()


def test_a_heap_the_test_froze_itself_stays_frozen_through_its_collections(demo: Any) -> None:
    """Code that freezes the heap to make its own collections cheap keeps that freeze: a full collection
    during the census does not unfreeze it, so a cycle the code froze survives its ``gc.collect()`` as it
    would without a census (and is freed once the code unfreezes)."""
    engine = Census(["census_demo"])
    engine.start()
    try:
        node = _Node()
        node.itself = node  # type: ignore[attr-defined]
        watched = weakref.ref(node)
        gc.freeze()
        try:
            del node
            gc.collect()
            assert watched() is not None, "the test's own freeze was undone"
        finally:
            gc.unfreeze()
        gc.collect()
        assert watched() is None
    finally:
        engine.close()


def test_what_a_test_made_before_a_full_collection_is_still_new(demo: Any) -> None:
    """The collection freezes the heap again afterwards: what was new before it is handed over first."""
    with census(["census_demo"]) as report:
        layer = nn.Linear(2, 2)
        demo.names.record(layer)
        weak_references = weakref.getweakrefcount(layer)
        gc.collect()
        assert weakref.getweakrefcount(layer) == weak_references, "the census keeps ids, not weak references"
        del layer
    assert [pin.kind for pin in report.pins] == ["Linear"]


def test_a_census_inside_another_leaves_the_outer_ones_new_objects_new(demo: Any) -> None:
    """The inner census freezes the heap when it starts: the outer one is handed what was new to it."""
    outer = Census(["census_demo"])
    outer.start()
    try:
        demo.names.record(nn.Linear(2, 2))
        with census(["census_demo"]) as inner:
            pass
        assert inner.pins == []
        assert [pin.kind for pin in outer.check("t").pins] == ["Linear"]
    finally:
        outer.close()


def test_a_test_that_unfreezes_the_heap_gets_no_false_pins(tmp_path: Path) -> None:
    """``gc.unfreeze()`` by the code under test makes every old object listed again: the census notices
    (the frozen sentinel is listed) and reports nothing for that test, and the next test is censused as
    before. In a child process, so that this session's own census keeps its frozen heap."""
    script = f'''
import gc, sys
sys.path.insert(0, {str(CENSUS)!r})
from torch import nn
import census_demo.names as names
from flake8_weakglobals.census.measure import Census
names.record(nn.Linear(2, 2))
engine = Census(["census_demo"])
engine.start()
gc.unfreeze()
names.record(nn.Linear(3, 3))
first = engine.finish("t").pins
names.record(nn.Linear(4, 4))
second = engine.finish("t").pins
print(len(first), [pin.kind for pin in second], gc.get_freeze_count() > 0)
'''
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "['Linear']", "True"], done.stdout


# --- pytest --weakglobals ---

PROJECT_TESTS = '''
import pytest
from torch import nn
from pinpkg import pins


@pytest.fixture(scope="session")
def shared():
    return nn.Linear(16, 16)


@pytest.fixture
def own():
    return nn.Linear(16, 16)


def test_pins():
    pins.add(nn.Linear(64, 64))


def test_local_only():
    model = nn.Linear(64, 64)
    model(__import__("torch").ones(64))


def test_session_fixture_stored(shared):
    pins.add(shared)


def test_function_fixture_stored(own):
    pins.add(own)


@pytest.mark.weakglobals(expect="pinpkg.pins.names")
def test_expected():
    pins.add(nn.Linear(2, 2))


@pytest.mark.weakglobals(allow=True)
def test_allowed():
    pins.add(nn.Linear(2, 2))


def test_fixture(weakglobals):
    pins.add(nn.Linear(1, 1))
    assert [pin.root for pin in weakglobals.check().pins] == ["pinpkg.pins.names"]
'''
PINS = "from torch import nn\n\nnames = {}\n\n\ndef add(module: nn.Module) -> None:\n    names[module] = 1\n"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project with one package that pins (found as the rootdir's package) and tests of every kind."""
    package = pytester.mkpydir("pinpkg")
    (package / "pins.py").write_text(PINS)
    pytester.makepyfile(test_project=PROJECT_TESTS)
    return pytester


def test_report_mode_lists_the_pins_at_the_end_of_the_session(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("--weakglobals", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=7)
    summary = census_summary(result)
    pin = "pinpkg.pins.names[<Linear at 0x...>]  (Linear, test_project.py::"
    assert summary[:6] == [
        "weakglobals census of pinpkg: 1 container holds 4 objects created by 4 tests, 17.3 KiB of tensor storage in all"
        " (each storage counted once)",
        "  17.3 KiB  pinpkg.pins.names: 4 objects; confirms WG001 at pinpkg/pins.py:3",
        f"              16.2 KiB  {pin}test_pins)",
        f"               1.1 KiB  {pin}test_function_fixture_stored)",
        f"                  24 B  {pin}test_expected; expected by its marker)",
        "                   8 B  ... and 1 more object",
    ]
    assert summary[6].startswith("7 tests censused in ")


def test_fail_mode_fails_each_test_that_pins_also_under_xdist(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("--weakglobals=fail", "-n", "2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=7, errors=3)
    errors = sorted(line.split(" - ")[0] for line in result.stdout.lines if line.startswith("ERROR "))
    assert errors == [f"ERROR test_project.py::{name}" for name in ("test_fixture", "test_function_fixture_stored", "test_pins")]
    assert "pinpkg.pins.names: 4 objects; confirms WG001 at pinpkg/pins.py:3" in result.stdout.str()  # the controller's summary


STORE = """from torch import nn

CACHE = {}
BY_NAME = {}
REGISTRY = {}
LOG = []
LATEST = {}


class Record:
    def __init__(self, module: nn.Module) -> None:
        self.module = module


def keep(name: str, module: nn.Module) -> None:
    CACHE[module] = name
    BY_NAME[name] = module


class _Sink:
    @staticmethod
    def log():
        return LOG


def log(module: nn.Module) -> None:
    record = Record(module)
    _Sink.log().append(record)  # through a class's getter, which the analysis does not follow: a real miss
    LATEST["last"] = record


def register(name, module):  # no annotation: nothing shows WG008 the value is a module
    REGISTRY[name] = module
"""
STORE_TESTS = """from torch import nn
from pinpkg import store


def test_keep():
    store.keep("first", nn.Linear(8, 8))


def test_log():
    store.log(nn.Linear(4, 4))


def test_register():
    store.register("bert", nn.Linear(2, 2))
"""


@pytest.fixture
def store(pytester: pytest.Pytester) -> pytest.Pytester:
    """A package whose module keeps one model in two maps (``keep``), another in a list and a map through one
    record both hold (``log``), a third in a map keyed by names only (``register``)."""
    package = pytester.mkpydir("pinpkg")
    (package / "store.py").write_text(STORE)
    pytester.makepyfile(test_store=STORE_TESTS)
    return pytester


def test_an_object_two_containers_hold_is_listed_under_each_with_its_path(store: pytest.Pytester) -> None:
    result = store.runpytest_subprocess("--weakglobals", "-p", "no:cacheprovider", "-k", "keep or log")
    result.assert_outcomes(passed=2, deselected=1)
    summary = census_summary(result)
    assert summary[0] == (
        "weakglobals census of pinpkg: 4 containers hold 2 objects created by 2 tests, 368 B of tensor storage in all"
        " (each storage counted once)"
    )
    lines = [line.strip() for line in summary]
    keep, log = "(Linear, test_store.py::test_keep; also held by", "(Linear, test_store.py::test_log; also held by"
    assert "288 B  pinpkg.store.CACHE: 1 object; confirms WG001 at pinpkg/store.py:3" in lines
    assert f"288 B  pinpkg.store.CACHE[<Linear at 0x...>]  {keep} pinpkg.store.BY_NAME)" in lines
    assert f"288 B  pinpkg.store.BY_NAME['first']  {keep} pinpkg.store.CACHE)" in lines
    assert f"80 B  pinpkg.store.LOG[0].module  {log} pinpkg.store.LATEST)" in lines  # through the record both hold
    assert f"80 B  pinpkg.store.LATEST['last'].module  {log} pinpkg.store.LOG)" in lines


def test_a_name_keyed_map_is_said_to_be_out_of_the_linters_scope_not_a_miss_to_report(store: pytest.Pytester) -> None:
    result = store.runpytest_subprocess("--weakglobals", "-p", "no:cacheprovider", "-k", "register")
    result.assert_outcomes(passed=1, deselected=2)
    assert census_summary(result)[1].strip() == (
        "24 B  pinpkg.store.REGISTRY: 1 object; keyed by name: WG008 reports such a map only where it can show the values are modules or tensors"
    )
    assert "please report" not in result.stdout.str() and "not reported by the linter" not in result.stdout.str()
    assert "\n1 test censused in " in result.stdout.str()  # one test, said in the singular
    result = store.runpytest_subprocess("--weakglobals", "-p", "no:cacheprovider", "-k", "log")  # a real miss still asks
    summary = census_summary(result)
    assert "80 B  pinpkg.store.LOG: 1 object; not reported by the linter" in [line.strip() for line in summary]
    assert [line for line in summary if "please report" in line] == [
        "1 container not reported by the linter: the most useful lines of this report, each a pin the static rules miss; "
        "please report them (https://github.com/flake8-weakglobals/flake8-weakglobals/issues)."
    ]


BOOKKEEPING_CONFTEST = """import pytest
from torch import nn

CONFIG = None


def pytest_configure(config):
    global CONFIG
    CONFIG = config  # a route to pytest's session that passes no module dunder


@pytest.fixture
def layer():
    return nn.Linear(64, 64)
"""

BOOKKEEPING_TESTS = """import gc
import weakref

from torch import nn

import pkg.store

REFS = []


def test_1(layer):
    REFS.append(weakref.ref(layer))


def test_2():
    gc.collect()
    assert REFS[0]() is None, "the fixture's layer is really freed after its test"


def test_3():
    pkg.store.KEEP.append(nn.Linear(2, 2))
"""


def test_pytests_own_bookkeeping_is_no_pin_of_tests_inside_the_package(pytester: pytest.Pytester) -> None:
    """Tests inside the package (``pkg/tests/conftest.py``): the conftest's ``__loader__`` (pytest's
    assertion-rewriting hook) and a global holding pytest's config both lead to the session, whose items
    hold each test's function-scoped fixtures until after the census. That is pytest's bookkeeping: only the
    planted pin in ``pkg.store.KEEP`` is reported, and report mode changes no outcome."""
    package = pytester.mkpydir("pkg")
    (package / "store.py").write_text("KEEP = []\n")
    tests = package / "tests"
    tests.mkdir()
    (tests / "__init__.py").write_text("")
    (tests / "conftest.py").write_text(BOOKKEEPING_CONFTEST)
    (tests / "test_a.py").write_text(BOOKKEEPING_TESTS)
    plain = pytester.runpytest_subprocess("-p", "no:cacheprovider", "pkg/tests")
    plain.assert_outcomes(passed=3)
    report = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--weakglobals=report", "pkg/tests")
    report.assert_outcomes(passed=3)
    failing = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--weakglobals=fail", "pkg/tests")
    failing.assert_outcomes(passed=3, errors=1)
    assert [line.split(" - ")[0] for line in failing.stdout.lines if line.startswith("ERROR ")] == ["ERROR pkg/tests/test_a.py::test_3"]
    for result in (report, failing):
        text = result.stdout.str()
        assert "__loader__" not in text and "funcargs" not in text and "CONFIG" not in text, text
        summary = "\n".join(census_summary(result))
        assert "pkg.store.KEEP: 1 object" in summary and summary.count(": 1 object") == 1, summary


CONSTANTS = """import functools

import torch
from torch import nn


@functools.lru_cache(maxsize=None)
def eye(n, dtype, device):
    return torch.eye(n, dtype=dtype, device=device)


@functools.lru_cache(maxsize=None)
def scale(module, factor):
    return [float(factor)] * 2
"""

CONSTANT_TESTS = """import torch
from torch import nn

import pkg.constants
import pkg.store


def test_a():
    pkg.constants.eye(3, torch.float64, torch.device("cpu"))


def test_b():
    pkg.constants.eye(3, torch.float64, torch.device("cpu"))


def test_module_keyed():
    pkg.constants.scale(nn.Linear(2, 2), 2)


def test_logged():
    pkg.store.LOG.append(nn.Linear(2, 2))
"""


def test_a_cache_of_constant_tensors_and_an_accepted_container_are_intended(pytester: pytest.Pytester) -> None:
    """An ``lru_cache`` of tensors keyed by a size, a dtype and a device is bounded by those values: its own
    line says intended (keys printed as ``torch.float64``), nothing asks to report it, and it fails no
    test. The same cache keyed by a module still fails. A container named in ``census-accept`` reads as
    accepted and fails no test."""
    package = pytester.mkpydir("pkg")
    (package / "constants.py").write_text(CONSTANTS)
    (package / "store.py").write_text("LOG = []\n")
    pytester.makepyfile(test_constants=CONSTANT_TESTS)
    pytester.makefile(".toml", pyproject='[tool.weakglobals]\ncensus-accept = ["pkg.store.LOG"]\n')
    failing = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--weakglobals=fail")
    failing.assert_outcomes(passed=4, errors=1)
    assert [line.split(" - ")[0] for line in failing.stdout.lines if line.startswith("ERROR ")] == ["ERROR test_constants.py::test_module_keyed"]
    summary = "\n".join(census_summary(failing))
    constant = next(line for line in summary.splitlines() if "eye <lru_cache>[" in line)
    assert "intended: a cache of constant tensors" in summary and "torch.float64" in constant and "torch.device(type='cpu')" in constant
    assert "<dtype at" not in summary and "<device at" not in summary
    assert "pkg.store.LOG: 1 object; intended: accepted in [tool.weakglobals] census-accept" in summary
    assert "1 container not reported by the linter" in summary, "only the module-keyed cache is a miss to report"


def test_what_could_not_be_collected_is_said_not_to_be_censused(project: pytest.Pytester) -> None:
    """A module that fails to import: pytest stops before any test (no pins, but not a clean census), or, with
    --continue-on-collection-errors or under pytest-xdist, runs the others."""
    project.makepyfile(test_broken="import no_such_module_anywhere\n")
    not_censused = "census: 1 module could not be collected; not censused: test_broken.py"
    result = project.runpytest_subprocess("--weakglobals", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert census_summary(result)[:2] == ["weakglobals census of pinpkg: no pins in the tests it censused", not_censused]
    for options in (["--continue-on-collection-errors"], ["-n", "2"]):
        result = project.runpytest_subprocess("--weakglobals", "-p", "no:cacheprovider", *options)
        result.assert_outcomes(passed=7, errors=1)
        summary = census_summary(result)
        assert summary[0].startswith("weakglobals census of pinpkg: 1 container holds 4 objects created by 4 tests")
        assert not_censused in summary, options


def test_without_the_flag_nothing_runs(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_inactive='''
import sys

def test_inactive(request):
    assert request.config.pluginmanager.get_plugin("weakglobals-census") is None
    assert "flake8_weakglobals.census.measure" not in sys.modules
''')
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_a_test_path_after_the_bare_option_is_still_a_test_path(pytester: pytest.Pytester) -> None:
    """``pytest --weakglobals tests``, as a user types it: argparse gives ``tests`` to the option, and the
    plugin hands it back as the first test path (only those tests run, and the census runs in report mode)."""
    pytester.mkpydir("pkg")
    pytester.makepyfile(test_one="def test_one():\n    pass\n", test_two="def test_two():\n    pass\n")
    result = pytester.runpytest_subprocess("--weakglobals", "test_one.py", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "weakglobals census" in result.stdout.str()
    result = pytester.runpytest_subprocess("--weakglobals", "test_one.py::test_one", "test_two.py", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_bad_input_is_one_clear_line(pytester: pytest.Pytester) -> None:
    pytester.mkpydir("pkg")
    pytester.makepyfile(test_bad='''
import pytest

@pytest.mark.weakglobals("everything")
def test_bad_marker():
    pass
''')
    result = pytester.runpytest_subprocess("--weakglobals", "test_bad")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--weakglobals takes 'report' or 'fail', not 'test_bad', which is no path either (write --weakglobals=report" in result.stderr.str()
    result = pytester.runpytest_subprocess("--weakglobals=report", "--weakglobals-packages", "pkg,-x")
    assert "--weakglobals-packages: '-x' is not a package name" in result.stderr.str()
    result = pytester.runpytest_subprocess("--weakglobals=report", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    assert "test_bad.py:3: @pytest.mark.weakglobals takes allow= and expect= only, not positional arguments" in result.stdout.str()
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_this_projects_own_tests_pin_nothing() -> None:
    """A subset of this suite that builds real models around the runtime, under ``--weakglobals=fail``
    (the packages under the rootdir: ``flake8_weakglobals`` and ``fixes``)."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--weakglobals=fail", "tests/test_noqa.py",
         "tests/test_runtime.py", "-k", "noqa or replaced_submodule or disappears or reused_id or deepcopy"],
        capture_output=True, text=True, cwd=REPO,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert "weakglobals census of fixes, flake8_weakglobals: no pins" in done.stdout
