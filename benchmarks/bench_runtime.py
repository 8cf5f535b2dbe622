"""WeakIdMap against the alternatives, side by side in one run, on the same 10,000 real keys.

    python benchmarks/bench_runtime.py [--sdists DIR] [--before REV]

ns/op (best of 7 rounds over all keys, the contenders' rounds interleaved) for insert, lookup hit, lookup miss, ``in``, delete, iteration and
``clear``; bytes per entry as ``tracemalloc`` counts them (requested) and as the process's resident memory
grows (real: 50 maps, 500,000 entries, so pymalloc's size classes and arenas are included). Contenders: a
plain dict (strong keys: the leak), ``weakref.WeakKeyDictionary`` (module keys only: parameter keys raise),
``torch.utils.weak.WeakIdKeyDictionary``, and DeepSpeed 0.19.8's hand-written ``WeakIdNameMap`` (imported
from the 0.19.8 sdist in ``--sdists``, default ``.cache/sdists``; skipped when absent), and the runtime
before the split (``--before``, a git revision whose ``flake8_weakglobals/runtime.py`` is loaded; default
15bd3bc, the last one-file runtime; skipped when git cannot show it). Times are CPU time of this thread
(``time.thread_time``), so that other work on a shared machine stays out of them.

Then ``torch.compile(backend="eager", fullgraph=True)``: us per call of a forward that reads one scale from
a dict and from a ``WeakIdMap`` holding 1, 1,000 and 10,000 entries (the guards dynamo checks per call).
"""
from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import tracemalloc
import weakref
from pathlib import Path
from typing import Any, Callable, Optional

import torch
from torch import nn
from torch.utils.weak import WeakIdKeyDictionary

from _common import one_file_runtime
from flake8_weakglobals.runtime import WeakIdMap

BEFORE = ["15bd3bc"]  # the revision of ``--before``, for the memory subprocesses
COUNT, ROUNDS, MAPS = 10_000, 7, 50  # --quick: 300, 1, 2 (a smoke run, not a measurement)
COMPILED_SIZES, COMPILED_CALLS = (1, 1_000, 10_000), 500  # --quick: (1, 300), 20
OPERATIONS = ("insert", "lookup hit", "lookup miss", "in", "delete", "iteration", "clear")




def load_weak_id_name_map(sdists: Path) -> Optional[type]:
    """DeepSpeed 0.19.8's ``WeakIdNameMap`` class, read from its ``debug.py`` without importing deepspeed."""
    archive = sdists / "deepspeed-0.19.8.tar.gz"
    if not archive.exists():
        return None
    with tarfile.open(archive) as tar:
        member = tar.extractfile("deepspeed-0.19.8/deepspeed/utils/debug.py")
        source = member.read().decode() if member else ""
    source = source.replace("import deepspeed.comm as dist", "dist = None")
    path = Path(tempfile.mkdtemp()) / "deepspeed_0198_debug.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("deepspeed_0198_debug", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.WeakIdNameMap


# One tight loop per operation, the same for every contender: ratios compare the containers themselves.
def _insert(container: Any, keys: list) -> None:
    for key in keys:
        container[key] = 1


def _lookup_hit(container: Any, keys: list) -> None:
    for key in keys:
        container[key]


def _lookup_miss(container: Any, strangers: list) -> None:
    for key in strangers:
        container.get(key)


def _contains(container: Any, keys: list) -> None:
    for key in keys:
        key in container


def _delete(container: Any, keys: list) -> None:
    for key in keys:
        del container[key]


def _iterate(container: Any, keys: list) -> None:
    for _ in container:
        pass


def _clear(container: Any, keys: list) -> None:
    container.clear()


# operation: (loop, needs a fresh filled container each round, the method it needs)
_LOOPS: dict[str, tuple[Callable[[Any, list], None], bool, str]] = {
    "insert": (_insert, False, "__setitem__"),
    "lookup hit": (_lookup_hit, False, "__getitem__"),
    "lookup miss": (_lookup_miss, False, "get"),
    "in": (_contains, False, "__contains__"),
    "delete": (_delete, True, "__delitem__"),
    "iteration": (_iterate, False, "__iter__"),
    "clear": (_clear, True, "clear"),
}


def filled(factory: Callable[[], Any], keys: list) -> Any:
    container = factory()
    _insert(container, keys)
    return container


def nanoseconds(factory: Callable[[], Any], keys: list, strangers: list, rounds: int) -> dict[str, Optional[float]]:
    """Best of ``rounds`` per operation, in ns per key (per entry for iteration and clear)."""
    shared = filled(factory, keys)
    results: dict[str, Optional[float]] = {}
    for operation, (loop, fresh, method) in _LOOPS.items():
        if not hasattr(shared, method):
            results[operation] = None
            continue
        times = []
        for _ in range(rounds):
            container = factory() if operation == "insert" else filled(factory, keys) if fresh else shared
            items = strangers if operation == "lookup miss" else keys
            gc.disable()
            start = time.thread_time()
            loop(container, items)
            times.append(time.thread_time() - start)
            gc.enable()
        results[operation] = min(times) / len(keys) * 1e9
    return results


def interleaved(contenders: dict[str, Any], keys: list, strangers: list, rounds: int) -> dict[str, Any]:
    """Each contender's best round, the rounds taken in turn (one round of every contender, then the next),
    so that a busy moment of a shared machine weighs on all of them alike; a ``RuntimeError`` for a
    contender that cannot take these keys."""
    best: dict[str, Any] = {}
    for _ in range(rounds):
        for name, factory in contenders.items():
            if factory is None or isinstance(best.get(name), RuntimeError):
                continue
            try:
                timings = nanoseconds(factory, keys, strangers, 1)
            except RuntimeError as error:
                best[name] = error
                continue
            previous = best.setdefault(name, timings)
            for operation, value in timings.items():
                if value is not None and previous[operation] is not None:
                    previous[operation] = min(previous[operation], value)
    return best


def memory(factory: Callable[[], Any], keys: list, maps: int) -> dict[str, float]:
    """Bytes per entry: requested (tracemalloc, one map) and real (resident growth over ``maps`` maps).

    Run in a fresh process (``--memory``): resident memory says nothing once earlier runs freed memory."""

    def resident() -> int:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    gc.collect()
    tracemalloc.start()
    container = filled(factory, keys)
    requested = tracemalloc.get_traced_memory()[0] / len(keys)
    tracemalloc.stop()
    del container
    gc.collect()
    before = resident()
    containers = [filled(factory, keys) for _ in range(maps)]
    gc.collect()
    grown = resident() - before
    assert len(containers) == maps  # held until measured
    return {"requested": requested, "real": grown / (maps * len(keys))}


def memory_in_fresh_process(kind: str, name: str, sdists: Path, quick: bool) -> dict[str, float]:
    command = [sys.executable, __file__, "--sdists", str(sdists), "--before", BEFORE[0], "--memory", kind, name, *(["--quick"] if quick else [])]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


_SCALE: Any = None  # the map the compiled forward reads, a module global as in the code the codemod fixes


class _Scaled(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x) * _SCALE[self.fc.weight]


def compiled_call_microseconds(factory: Callable[..., Any], size: int, rounds: int, calls: int) -> float:
    """Best of ``rounds``, in us per call, of ``torch.compile(..., backend="eager", fullgraph=True)`` on a
    forward that reads its weight's scale from a map holding ``size`` entries. The graph is the same for
    every map; what differs is the guards dynamo checks on each call before running it."""
    global _SCALE
    torch._dynamo.reset()  # a fresh cache: no other map's compiled code is tried first
    model = _Scaled()
    others = [nn.Parameter(torch.zeros(1)) for _ in range(size - 1)]  # held here, so both maps keep them
    _SCALE = factory((key, 1.0) for key in others)
    _SCALE[model.fc.weight] = 0.5
    compiled = torch.compile(model, backend="eager", fullgraph=True)
    x = torch.ones(1, 4)
    times = []
    with torch.no_grad():
        compiled(x)
        for _ in range(rounds):
            start = time.perf_counter()
            for _ in range(calls):
                compiled(x)
            times.append(time.perf_counter() - start)
    assert len(_SCALE) == size == len(others) + 1
    return min(times) / calls * 1e6


def ratio(numerator: float, denominator: float) -> str:
    return f"{numerator / denominator:.2f}x" if denominator else "n/a (too small to measure)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sdists", type=Path, default=Path(__file__).resolve().parents[1] / ".cache" / "sdists")
    parser.add_argument("--before", default="15bd3bc", help="git revision of the runtime to compare with")
    parser.add_argument("--memory", nargs=2, metavar=("KIND", "CONTAINER"), help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run, not a measurement")
    arguments = parser.parse_args()
    BEFORE[0] = arguments.before
    count, rounds, maps = (300, 1, 2) if arguments.quick else (COUNT, ROUNDS, MAPS)

    keys_by_kind = {
        "torch.Tensor": ([torch.ones(2) for _ in range(count)], [torch.ones(2) for _ in range(count)]),
        "nn.Parameter": ([nn.Parameter(torch.randn(4, 4)) for _ in range(count)], [nn.Parameter(torch.randn(4, 4)) for _ in range(count)]),
        "nn.Module": ([nn.Identity() for _ in range(count)], [nn.Identity() for _ in range(count)]),
    }
    contenders: dict[str, Optional[Callable[[], Any]]] = {
        "dict (strong keys)": dict,
        "weakref.WeakKeyDictionary": weakref.WeakKeyDictionary,
        "torch WeakIdKeyDictionary": WeakIdKeyDictionary,
        "DeepSpeed 0.19.8 WeakIdNameMap": load_weak_id_name_map(arguments.sdists),
        "WeakIdMap (before)": getattr(one_file_runtime(arguments.before), "WeakIdMap", None),
        "WeakIdMap": WeakIdMap,
    }
    if arguments.memory:
        kind, name = arguments.memory
        factory = contenders[name]
        assert factory is not None
        print(json.dumps(memory(factory, keys_by_kind[kind][0], maps)))
        return
    print(f"Python {sys.version.split()[0]}, torch {torch.__version__}, {count:,} keys, best of {rounds}; ns/op")
    table: dict[tuple[str, str], dict[str, Any]] = {}
    for kind, (keys, strangers) in keys_by_kind.items():
        print(f"\n{count:,} {kind} keys\n")
        print("| container | " + " | ".join(OPERATIONS) + " | bytes/entry requested | bytes/entry real |")
        print("|---|" + "---|" * (len(OPERATIONS) + 2))
        measured = interleaved(contenders, keys, strangers, rounds)
        for name, factory in contenders.items():
            if factory is None:
                print(f"| {name} | " + " | ".join(["(not found)"] * (len(OPERATIONS) + 2)) + " |")
                continue
            timings = measured[name]
            if isinstance(timings, RuntimeError):  # WeakKeyDictionary with tensor keys
                print(f"| {name} | raises `RuntimeError: {timings}` | " + " | ".join([""] * (len(OPERATIONS) + 1)) + " |")
                continue
            # a smoke run measures in this process: a fresh one per cell (torch imported 15 times) is for figures
            sizes = memory(factory, keys, maps) if arguments.quick else memory_in_fresh_process(kind, name, arguments.sdists, arguments.quick)
            table[(kind, name)] = {**timings, **sizes}
            cells = ["n/a" if timings[op] is None else f"{timings[op]:.0f}" for op in OPERATIONS]
            print(f"| {name} | " + " | ".join(cells) + f" | {sizes['requested']:.0f} | {sizes['real']:.0f} |")
    print("\nTargets, as ratios measured in this run:")
    for kind in keys_by_kind:
        ours, plain, torchs = (table[(kind, name)] for name in ("WeakIdMap", "dict (strong keys)", "torch WeakIdKeyDictionary"))
        earlier = table.get((kind, "WeakIdMap (before)"))
        checks = [
            ("insert / dict", ratio(ours["insert"], plain["insert"]), "<= 2.6"),
            ("lookup hit / dict", ratio(ours["lookup hit"], plain["lookup hit"]), "<= 1.5"),
            ("torch / lookup hit", ratio(torchs["lookup hit"], ours["lookup hit"]), ">= 4"),
            ("torch / insert", ratio(torchs["insert"], ours["insert"]), ">= 1.2"),
            ("bytes real / torch", ratio(ours["real"], torchs["real"]), "<= 1"),
        ]
        if earlier is not None:
            checks += [
                ("before: insert / dict", ratio(earlier["insert"], plain["insert"]), "for reference"),
                ("before: lookup hit / dict", ratio(earlier["lookup hit"], plain["lookup hit"]), "for reference"),
            ]
        print(f"- {kind}: " + "; ".join(f"{label} {value} (target {target})" for label, value, target in checks))

    sizes, calls = ((1, count), 20) if arguments.quick else (COMPILED_SIZES, COMPILED_CALLS)
    print(f"\ntorch.compile(backend=\"eager\", fullgraph=True), a forward reading one scale: us per call, best of {rounds}\n")
    print("| entries in the map | dict | WeakIdMap | WeakIdMap / dict |")
    print("|---|---|---|---|")
    for size in sizes:
        plain, ours = (compiled_call_microseconds(factory, size, rounds, calls) for factory in (dict, WeakIdMap))
        print(f"| {size:,} | {plain:.1f} | {ours:.1f} | {ratio(ours, plain)} |")


if __name__ == "__main__":
    main()
