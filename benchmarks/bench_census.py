"""What one census costs against one ``gc.collect()`` on the same heap, side by side in one run.

    python benchmarks/bench_census.py [--quick]

Builds, in a package module ``census_bench`` (the census's selection), 10^5 and then 10^6 live Python
objects (nodes, each with its list of children) and 10^4 ``nn.Linear`` modules, all
reachable from its globals; then times one ``gc.collect()`` and one census per case (best of 3, each
census after ``start``, as ``pytest --weakglobals`` runs one after every test):
- nothing new survives (most tests): one pass over ``gc.get_objects()``, no walk;
- a new module survives, held by a local: the whole state is walked and nothing is found;
- a new module is pinned in the deepest node: walked until found, with its path and bytes.
``--quick`` uses 10^4 objects and 10^3 modules (a smoke run).
"""
from __future__ import annotations

import gc
import sys
import time
import types
from pathlib import Path
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import best  # noqa: E402
from flake8_weakglobals.census.measure import Census  # noqa: E402


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


def measure(objects: int, modules: int) -> dict[str, float]:
    state = build(objects, modules)
    gc.collect()
    engine = Census(["census_bench"])
    engine.start()
    results = {"heap": float(len(gc.get_objects())), "gc.collect()": best(gc.collect)}
    results["census, nothing new survives"] = best(lambda: engine.finish("t"))

    def local_only() -> None:
        survivor = nn.Linear(4, 4)  # noqa: F841  # alive during the census, reachable from no root
        assert not engine.finish("t").pins

    results["census, a new module held by a local (whole walk)"] = best(local_only)

    def pinned() -> None:
        state.nodes[-1].children.append(nn.Linear(4, 4))
        assert len(engine.finish("t").pins) == 1
        state.nodes[-1].children.clear()

    results["census, a new module pinned in the deepest node"] = best(pinned)
    start = time.perf_counter()
    engine.start()
    results["start (the first test's baseline)"] = time.perf_counter() - start
    del sys.modules["census_bench"]
    return results


def main() -> None:
    quick = "--quick" in sys.argv
    sizes = [(10**4, 10**3)] if quick else [(10**5, 10**4), (10**6, 10**4)]
    print(f"Python {sys.version.split()[0]}, torch {torch.__version__}; best of 3; ratio = time / one gc.collect() on the same heap")
    print("| live objects built | modules | heap (gc-tracked) | step | seconds | / gc.collect() |")
    print("|---|---|---|---|---|---|")
    for objects, modules in sizes:
        results = measure(objects, modules)
        heap = int(results.pop("heap"))
        collect = results["gc.collect()"]
        for step, seconds in results.items():
            print(f"| {objects:,} | {modules:,} | {heap:,} | {step} | {seconds:.3f} | {seconds / collect:.2f}x |")


if __name__ == "__main__":
    main()
