"""weak_lru_cache against functools.lru_cache, side by side in one run, on the same real calls.

    python benchmarks/bench_cache.py [--quick] [--before REV]

ns per call (best of 7 rounds, CPU time of this thread, so that other work on a shared machine stays out)
of a hit and a miss, on a method of an ``nn.Module`` (the rotary shape: ``forward(self, seq_len, device)``)
and on a function of a tensor and an int; bytes per entry as ``tracemalloc`` counts them (arguments and
results allocated beforehand, so only the cache's own memory is counted), and per instance for a method's
first call. ``weak_lru_cache (before)`` is the one-file runtime at ``--before`` (default 15bd3bc, whose
methods had a cache per instance), loaded from git; skipped when git cannot show it.
"""
from __future__ import annotations

import argparse
import functools
import gc
import sys
import time
import tracemalloc
from typing import Any, Callable

import torch
from torch import nn

from _common import one_file_runtime
from flake8_weakglobals.runtime import weak_lru_cache

COUNT, ROUNDS = 10_000, 7  # --quick: 200, 1 (a smoke run, not a measurement)
CPU = torch.device("cpu")




def module_class(cache: Callable[..., Any]) -> type[nn.Module]:
    class Rotary(nn.Module):
        @cache(maxsize=None)
        def forward(self, seq_len: int, device: torch.device) -> int:
            return seq_len

    return Rotary


def function(cache: Callable[..., Any]) -> Callable[..., Any]:
    @cache(maxsize=None)
    def scaled(tensor: torch.Tensor, factor: int) -> int:
        return factor

    return scaled


def best(run: Callable[[], None], count: int, rounds: int) -> float:
    """ns per call: the best round, each round ``count`` calls, with the collector off as timeit does."""
    times = []
    for _ in range(rounds):
        gc.disable()
        start = time.thread_time()
        run()
        times.append(time.thread_time() - start)
        gc.enable()
    return min(times) / count * 1e9


def method_costs(cache: Callable[..., Any], count: int, rounds: int) -> dict[str, float]:
    cls = module_class(cache)
    model = cls()
    lengths = list(range(count))
    for length in lengths:
        model(length, CPU)

    def hits() -> None:
        for length in lengths:
            model.forward(length, CPU)

    def misses() -> None:
        cls.forward.cache_clear()  # a fresh, empty cache each round: every call misses
        for length in lengths:
            model.forward(length, CPU)

    return {"hit": best(hits, count, rounds), "miss": best(misses, count, rounds)}


def function_costs(cache: Callable[..., Any], count: int, rounds: int) -> dict[str, float]:
    scaled = function(cache)
    tensors = [torch.ones(1) for _ in range(count)]
    for tensor in tensors:
        scaled(tensor, 3)

    def hits() -> None:
        for tensor in tensors:
            scaled(tensor, 3)

    def misses() -> None:
        scaled.cache_clear()
        for tensor in tensors:
            scaled(tensor, 3)

    return {"hit": best(hits, count, rounds), "miss": best(misses, count, rounds)}


def traced_bytes(fill: Callable[[], object], count: int) -> float:
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    keep = fill()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del keep
    return (after - before) / count


def memory(cache: Callable[..., Any], count: int) -> dict[str, float]:
    """Bytes per entry: one model, ``count`` lengths; ``count`` tensors to a function; ``count`` models, one
    call each (what a method's first call on an instance costs: an entry and a token)."""
    model = module_class(cache)()
    lengths = [10**6 + length for length in range(count)]  # ints made beforehand: not the cache's memory
    method_entry = traced_bytes(lambda: [model(length, CPU) for length in lengths], count)
    scaled, tensors = function(cache), [torch.ones(1) for _ in range(count)]
    function_entry = traced_bytes(lambda: [scaled(tensor, 3) for tensor in tensors], count)
    models = [type(model)() for _ in range(count)]
    instance = traced_bytes(lambda: [each(1, CPU) for each in models], count)
    return {"method entry": method_entry, "function entry": function_entry, "method, first call on an instance": instance}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run, not a measurement")
    parser.add_argument("--before", default="15bd3bc", help="git revision of the runtime to compare with")
    arguments = parser.parse_args()
    count, rounds = (200, 1) if arguments.quick else (COUNT, ROUNDS)
    CACHES: dict[str, Callable[..., Any]] = {"functools.lru_cache": functools.lru_cache, "weak_lru_cache": weak_lru_cache}
    before = getattr(one_file_runtime(arguments.before), "weak_lru_cache", None)
    if before is not None:
        CACHES["weak_lru_cache (before)"] = before
    print(f"Python {sys.version.split()[0]}, torch {torch.__version__}, {count:,} calls per round, best of {rounds}")
    timings: dict[str, dict[str, dict[str, float]]] = {name: {"method": {}, "function": {}} for name in CACHES}
    for _ in range(3):  # interleaved, so that a busy moment of the machine weighs on every cache alike
        for name, cache in CACHES.items():
            for where, costs in (("method", method_costs), ("function", function_costs)):
                measured = costs(cache, count, rounds)
                for what, value in measured.items():
                    timings[name][where][what] = min(value, timings[name][where].get(what, value))
    sizes = {name: memory(cache, count) for name, cache in CACHES.items()}
    columns = ["method hit (ns)", "method miss (ns)", "function hit (ns)", "function miss (ns)", "bytes/entry method"]
    columns += ["bytes/entry function", "bytes, first call on an instance"]
    print("\n| cache | " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(columns))
    for name in CACHES:
        time_cells = [f"{timings[name][where][what]:.0f}" for where in ("method", "function") for what in ("hit", "miss")]
        size_cells = [f"{value:.0f}" for value in sizes[name].values()]
        print(f"| {name} | " + " | ".join(time_cells + size_cells) + " |")
    base, weak = timings["functools.lru_cache"], timings["weak_lru_cache"]
    print("\nTargets, as ratios measured in this run:")
    print(f"- method hit / lru_cache {weak['method']['hit'] / base['method']['hit']:.2f}x (target <= 2)")
    print(f"- function hit, tensor arguments / lru_cache {weak['function']['hit'] / base['function']['hit']:.2f}x (target <= 3)")
    print(f"- method miss / lru_cache {weak['method']['miss'] / base['method']['miss']:.2f}x; "
          f"function miss / lru_cache {weak['function']['miss'] / base['function']['miss']:.2f}x (for reference)")
    if "weak_lru_cache (before)" in timings:
        old = timings["weak_lru_cache (before)"]
        print(f"- before: method hit / lru_cache {old['method']['hit'] / base['method']['hit']:.2f}x (a cache per instance); "
              f"function hit / lru_cache {old['function']['hit'] / base['function']['hit']:.2f}x")


if __name__ == "__main__":
    main()
