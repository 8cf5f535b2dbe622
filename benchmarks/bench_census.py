"""What one census costs against one ``gc.collect()`` on the same heap, side by side in one run.

    python benchmarks/bench_census.py [--quick] [--against REV] [--rounds N] [--wall]

Builds, in a package module ``census_bench`` (the census's selection), 10^5 and then 10^6 live Python
objects (nodes, each with its list of children) and 10^4 ``nn.Linear`` modules, all
reachable from its globals; then times one ``gc.collect()`` and one census per case (best of 3, each
census after ``start``, as ``pytest --weakglobals`` runs one after every test):
- nothing new survives (most tests): no walk; the objects created since the start are listed (the whole
  heap, before the census froze it at the start: ``census/new_objects.py``);
- a new module survives, held by a local: the whole state is walked and nothing is found;
- a new module is pinned in the deepest node: the whole state is walked, and the pin named with its
  path and bytes.
``--quick`` uses 10^4 objects and 10^3 modules (a smoke run).

``--against REV`` also times the census of commit REV of this repository (its ``flake8_weakglobals``
exported by ``git archive`` into a temporary directory and imported under another name), on the same heap in
the same process, each round timing ``gc.collect()``, this tree's census and REV's in turn: the machine's
load (its two cores are shared) moves both alike, and each ratio is to the ``gc.collect()`` of its round.

Times are the CPU time of the thread (``time.thread_time``): on a machine whose cores are shared, time spent
waiting for a core is not the census's cost, and wall-clock ratios moved by 1.5x from one run to the next.
``--wall`` times wall-clock instead (``time.perf_counter``). ``--rounds`` (default 3): each figure is the
best of them.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import subprocess
import sys
import tarfile
import tempfile
import time
import types
from pathlib import Path
from typing import Any, Callable

import torch
from torch import nn

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from flake8_weakglobals.census.measure import Census  # noqa: E402

ROUNDS = 3  # best of (--rounds)
CLOCK: Callable[[], float] = time.thread_time  # --wall: time.perf_counter


class Node:
    def __init__(self, index: int) -> None:
        self.index, self.children = index, []


def build(objects: int, modules: int) -> types.ModuleType:
    """A module whose globals reach ``objects`` tracked objects (a node and its list: two each) and ``modules``
    modules, nested a few levels deep as real state is."""
    state = types.ModuleType("census_bench")
    nodes = [Node(index) for index in range(objects // 2)]
    for parent, child in zip(nodes[: len(nodes) // 2], nodes[1::2]):
        parent.children.append(child)
    state.nodes = nodes
    state.models = {f"model{index}": nn.Linear(4, 4) for index in range(modules)}
    sys.modules[state.__name__] = state
    return state


def census_of(revision: str, directory: Path) -> type:
    """The ``Census`` class of ``revision``: its package exported into ``directory`` as ``flake8_weakglobals_<rev>``
    (the package's imports of itself are relative), imported from there."""
    name = f"flake8_weakglobals_{revision.replace('-', '_').replace('.', '_').replace('~', '_').replace('^', '_')}"
    archive = subprocess.run(["git", "-C", str(REPO), "archive", revision, "flake8_weakglobals"], capture_output=True, check=True)
    tar = directory / "package.tar"
    tar.write_bytes(archive.stdout)
    with tarfile.open(tar) as opened:
        opened.extractall(directory)
    (directory / "flake8_weakglobals").rename(directory / name)
    sys.path.insert(0, str(directory))
    return importlib.import_module(f"{name}.census.measure").Census  # type: ignore[no-any-return]


def cases(state: types.ModuleType) -> dict[str, Callable[[Any], None]]:
    """Each step, as a function of the engine it times."""

    def nothing_new(engine: Any) -> None:
        engine.finish("t")

    def local_only(engine: Any) -> None:
        survivor = nn.Linear(4, 4)  # noqa: F841  # alive during the census, reachable from no root
        assert not engine.finish("t").pins

    def pinned(engine: Any) -> None:
        state.nodes[-1].children.append(nn.Linear(4, 4))
        try:
            assert len(engine.finish("t").pins) == 1
        finally:
            state.nodes[-1].children.clear()

    def start(engine: Any) -> None:
        engine.start()

    return {
        "census, nothing new survives": nothing_new,
        "census, a new module held by a local (whole walk)": local_only,
        "census, a new module pinned in the deepest node": pinned,
        "start (the first test's baseline)": start,
    }


def measure(objects: int, modules: int, engines: dict[str, type]) -> tuple[int, dict[str, dict[str, tuple[float, float]]]]:
    """``heap, {step: {engine: (best seconds, best ratio to the same round's gc.collect())}}``."""
    state = build(objects, modules)
    gc.collect()
    censuses = {label: engine(["census_bench"]) for label, engine in engines.items()}
    heap = len(gc.get_objects())
    collects: list[float] = []
    results: dict[str, dict[str, tuple[float, float]]] = {}
    for step, run in cases(state).items():
        timings: dict[str, list[tuple[float, float]]] = {label: [] for label in censuses}
        for round in range(ROUNDS):
            collect = timed(gc.collect)
            collects.append(collect)
            order = list(censuses.items())
            for label, census in order if round % 2 == 0 else order[::-1]:  # neither always runs first
                census.start()  # each census after its own baseline, as after the test before
                seconds = timed(lambda: run(census))
                getattr(census, "close", lambda: None)()  # unfrozen again: the next collect and census see the whole heap
                timings[label].append((seconds, seconds / collect))
        results[step] = {label: (min(s for s, _ in runs), min(r for _, r in runs)) for label, runs in timings.items()}
    del sys.modules["census_bench"]
    return heap, {"gc.collect()": {label: (min(collects), 1.0) for label in censuses}, **results}


def timed(run: Callable[[], object]) -> float:
    start = CLOCK()
    run()
    return CLOCK() - start


def main() -> None:
    global ROUNDS, CLOCK
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^4 objects, 10^3 modules: a smoke run")
    parser.add_argument("--against", metavar="REV", help="also time the census of this commit, side by side")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"best of this many rounds (default {ROUNDS})")
    parser.add_argument("--wall", action="store_true", help="wall-clock time instead of the thread's CPU time")
    options = parser.parse_args()
    ROUNDS, CLOCK = options.rounds, (time.perf_counter if options.wall else time.thread_time)
    sizes = [(10**4, 10**3)] if options.quick else [(10**5, 10**4), (10**6, 10**4)]
    with tempfile.TemporaryDirectory() as directory:
        engines: dict[str, type] = {"this tree": Census}
        if options.against:
            engines[options.against] = census_of(options.against, Path(directory))
        clock = "wall-clock time" if options.wall else "the thread's CPU time"
        print(f"Python {sys.version.split()[0]}, torch {torch.__version__}; {clock}, best of {ROUNDS} rounds; ratio = the "
              "best of time / the gc.collect() of the same round, on the same heap")
        labels = list(engines)
        print("| live objects built | modules | heap (gc-tracked) | step | " + " | ".join(
            f"{label}: seconds | {label}: / gc.collect()" for label in labels) + " |")
        print("|---|---|---|---|" + "---|---|" * len(labels))
        for objects, modules in sizes:
            heap, results = measure(objects, modules, engines)
            for step, by_engine in results.items():
                row = " | ".join(f"{by_engine[label][0]:.3f} | {by_engine[label][1]:.2f}x" for label in labels)
                print(f"| {objects:,} | {modules:,} | {heap:,} | {step} | {row} |")


if __name__ == "__main__":
    main()
