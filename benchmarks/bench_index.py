"""What the project index costs, cold and warm, side by side in one run over the installed torch tree.

    python benchmarks/bench_index.py [--quick]

Each step is one in-process pass over the same files:

1. read + ``ast.parse`` of every file: the floor any linter pays;
2. ``weakglobals --jobs 1``'s own loop and per-file function without the index (each file alone, as before
   the index existed);
3. the check with the index and an empty disk cache (cold: every module the checks reach is summarised);
4. the same with the cache the cold pass wrote, in a fresh index (warm: summaries are read, not rebuilt);

5. the ``weakglobals`` command itself, as a user runs it (a worker per core), cold then warm: the CPU time of
   all its processes, start-up included. Each worker keeps its own index and reuses trees within its own
   chunk of files only, so it summarises more than one process does (the disk cache is shared);

then, per file, the analysis alone with a warm index against that file's ``ast.parse``. A run sets Python's
cyclic collector to run rarely (``parse_once.batch``), which alone makes parsing cheaper, so the floor is
also measured with that setting: the ratio to it is the cost of the check itself. Times are CPU
seconds of this one process (every pass is single-threaded), the best of two interleaved rounds, so that
other work on a shared machine stays out of the ratios.
Targets (the accuracy issue): ``weakglobals`` <= 1.5x read + parse, cold and warm; the analysis of one file
with a warm index <= 0.5x its ``ast.parse``.
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional
from unittest import mock

from _common import installed_package

from flake8_weakglobals.frontends import check_one_file as checking
from flake8_weakglobals.source import parse_once
from flake8_weakglobals.index import project
from flake8_weakglobals.rules.analyze_module import analyze
from flake8_weakglobals.frontends.config import Settings
from flake8_weakglobals.frontends.command import Job, lint_file
from flake8_weakglobals.frontends.parallel import ordered_results
from flake8_weakglobals.index.import_order import importers_first
from flake8_weakglobals.analysis.framework_types import Vocabulary, may_mention_framework

VOCABULARY = Vocabulary()
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "2"))
JOB = Job(Settings())


def a_pass(paths: list[Path], indexed: Optional[bool], tuned: bool = False) -> float:
    """CPU seconds of one pass: read + parse (``indexed`` None; ``tuned``: with the collector set as a run
    sets it), or ``weakglobals --jobs 1``'s own loop, with the index (as it runs) or without it (each file
    alone, as before the index existed)."""
    project._INDEXES.clear()  # a fresh process: nothing summarised in memory
    project._DIRECTORIES.clear()
    project._MARKED.clear()
    start = time.process_time()
    if indexed is None:
        with parse_once.batch([]) if tuned else contextlib.nullcontext():
            for path in paths:
                ast.parse(path.read_bytes())
    else:
        with contextlib.nullcontext() if indexed else mock.patch.object(checking, "context_for", lambda path: None):
            for _ in ordered_results(lint_file, paths, JOB, 1, parse_once.batch, importers_first):
                pass
    return time.process_time() - start


def command(root: Path, jobs: int, cache: str) -> float:
    """CPU seconds of the ``weakglobals`` command itself (all its processes, start-up included) over
    ``root``, with ``--jobs`` ``jobs`` (``0``: its default, every core) and the disk cache in ``cache``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, "-c", "from flake8_weakglobals.frontends.command import main; main()", "--exit-zero", *(["--jobs", str(jobs)] if jobs else []), str(root)],
        env={**os.environ, project.CACHE_DIRECTORY_VARIABLE: cache}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
    )  # stderr: the one torch file only Python 3.12 parses
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def per_file_analysis(paths: list[Path]) -> tuple[float, float]:
    """Sum over files that reach the analysis: ``ast.parse`` time, and analysis time with a warm index."""
    parsing = analysing = 0.0
    for path in paths:
        text = path.read_text(encoding="utf-8")
        if not may_mention_framework(text, VOCABULARY):
            continue
        start = time.process_time()
        tree = ast.parse(text)
        parsing += time.process_time() - start
        context = project.context_for(path)
        start = time.process_time()
        analyze(tree, text, VOCABULARY, context)
        analysing += time.process_time() - start
    return parsing, analysing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="torch/nn only: a smoke run")
    arguments = parser.parse_args()
    root = installed_package("torch") / "nn" if arguments.quick else installed_package("torch")
    paths = []
    for path in sorted(root.rglob("*.py")):
        try:
            ast.parse(path.read_bytes())  # also warms the page cache
        except SyntaxError:
            continue
        paths.append(path)
    floor = tuned = alone = cold = warm = float("inf")
    commands = {"cold": float("inf"), "warm": float("inf")}
    for _ in range(ROUNDS):  # interleaved, the best of each: a quiet moment helps every pass alike
        with tempfile.TemporaryDirectory() as cache:
            os.environ[project.CACHE_DIRECTORY_VARIABLE] = cache
            floor = min(floor, a_pass(paths, None))
            tuned = min(tuned, a_pass(paths, None, tuned=True))
            alone = min(alone, a_pass(paths, False))
            cold = min(cold, a_pass(paths, True))
            entries = len(list(Path(cache).glob("*.json")))
            warm = min(warm, a_pass(paths, True))
            parsing, analysing = per_file_analysis(paths)  # the index is warm: the pass above filled it
        with tempfile.TemporaryDirectory() as cache:
            commands["cold"] = min(commands["cold"], command(root, 0, cache))
            commands["warm"] = min(commands["warm"], command(root, 0, cache))
    print(f"torch {root.relative_to(root.parents[1])}: {len(paths):,} files, {entries:,} summaries cached, Python {sys.version.split()[0]}\n")
    print("| pass (same files) | CPU seconds | / read + parse | / read + parse, same collector settings |")
    print("|---|---:|---:|---:|")
    print(f"| read + ast.parse | {floor:.2f} | 1.00x | |")
    print(f"| read + ast.parse, collector as a run sets it | {tuned:.2f} | {tuned / floor:.2f}x | 1.00x |")
    for name, seconds in [("check, no index", alone), ("check, index, cold cache", cold), ("check, index, warm cache", warm)]:
        print(f"| {name} | {seconds:.2f} | {seconds / floor:.2f}x | {seconds / tuned:.2f}x |")
    for state, seconds in commands.items():
        print(f"| `weakglobals` command, {os.cpu_count()} workers, {state} cache: all processes, start-up included | {seconds:.2f} | {seconds / floor:.2f}x | {seconds / tuned:.2f}x |")
    print(f"\nAnalysis alone with a warm index, over the files the prefilter lets through: {analysing:.2f} s "
          f"against {parsing:.2f} s of their ast.parse ({analysing / parsing:.2f}x).")


if __name__ == "__main__":
    main()
