"""What the project index costs, cold and warm, side by side in one run over the installed torch tree.

    python benchmarks/bench_index.py [--quick]

Each step is one in-process pass over the same files (read, parse, check, drop), as ``weakglobals`` works:

1. read + ``ast.parse`` of every file: the floor any linter pays;
2. the check without the index (each file alone, as before the index existed);
3. the check with the index and an empty disk cache (cold: every module the checks reach is summarised);
4. the same with the cache the cold pass wrote, in a fresh index (warm: summaries are read, not rebuilt);

then, per file, the analysis alone with a warm index against that file's ``ast.parse``. Times are CPU
seconds of this one process (every pass is single-threaded), the best of two interleaved rounds, so that
other work on a shared machine stays out of the ratios.
Targets (the accuracy issue): ``weakglobals`` <= 1.5x read + parse, cold and warm; the analysis of one file
with a warm index <= 0.5x its ``ast.parse``.
"""
from __future__ import annotations

import argparse
import ast
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

from _common import installed_package

from flake8_weakglobals import project
from flake8_weakglobals.analysis import analyze
from flake8_weakglobals.checking import parse, reportable
from flake8_weakglobals.config import Settings
from flake8_weakglobals.sources import read_source
from flake8_weakglobals.vocabulary import Vocabulary, may_mention_framework

VOCABULARY = Vocabulary()
ROUNDS = 2
SETTINGS = Settings()


def check(path: Path, indexed: bool) -> None:
    """``checking.check_file``, with the index on or off."""
    source = read_source(path)
    if not may_mention_framework(source.text, VOCABULARY):
        return
    tree = parse(source.text, str(path))
    context = project.context_for(path) if indexed else None
    reportable(analyze(tree, source.text, VOCABULARY, context), source.text, SETTINGS)


def a_pass(paths: list[Path], indexed: Optional[bool]) -> float:
    project._INDEXES.clear()  # a fresh process: nothing summarised in memory
    project._DIRECTORIES.clear()
    project._MARKED.clear()
    start = time.process_time()
    for path in paths:
        if indexed is None:
            ast.parse(path.read_bytes())
        else:
            check(path, indexed)
    return time.process_time() - start


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
    floor = alone = cold = warm = float("inf")
    for _ in range(ROUNDS):  # interleaved, the best of each: a quiet moment helps every pass alike
        with tempfile.TemporaryDirectory() as cache:
            os.environ[project.CACHE_DIRECTORY_VARIABLE] = cache
            floor = min(floor, a_pass(paths, None))
            alone = min(alone, a_pass(paths, False))
            cold = min(cold, a_pass(paths, True))
            entries = len(list(Path(cache).glob("*.json")))
            warm = min(warm, a_pass(paths, True))
            parsing, analysing = per_file_analysis(paths)  # the index is warm: the pass above filled it
    print(f"torch {root.relative_to(root.parents[1])}: {len(paths):,} files, {entries:,} summaries cached, Python {sys.version.split()[0]}\n")
    print("| pass (same files) | CPU seconds | / read + parse |")
    print("|---|---:|---:|")
    for name, seconds in [
        ("read + ast.parse", floor),
        ("check, no index", alone),
        ("check, index, cold cache", cold),
        ("check, index, warm cache", warm),
    ]:
        print(f"| {name} | {seconds:.2f} | {seconds / floor:.2f}x |")
    print(f"\nAnalysis alone with a warm index, over the files the prefilter lets through: {analysing:.2f} s "
          f"against {parsing:.2f} s of their ast.parse ({analysing / parsing:.2f}x).")


if __name__ == "__main__":
    main()
