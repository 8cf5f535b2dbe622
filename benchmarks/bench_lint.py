"""What the plugin costs, side by side in one run, over the installed torch tree.

    python benchmarks/bench_lint.py [--skip-flake8]

1. In-process, one pass per step over the same files, each parsed, checked and dropped in turn:
   ``ast.parse``; the plugin as flake8 runs it (prefilter + analysis); the analysis alone, on every file;
   flake8-bugbear's checker.
2. ``weakglobals`` over the tree with ``--jobs 1`` and ``--jobs 2``: what the worker pool buys.
3. ``flake8 --select WG`` over the tree, wall time with and without this plugin installed (the same flake8
   and plugins otherwise: the run without it lists ``flake8-weakglobals`` among flake8's banned plugins).

Targets: the analysis <= 0.5x the ``ast.parse`` time; ``--jobs 2`` >= 1.3x faster than ``--jobs 1``; the
plugin adds <= 10% to a flake8 run.
"""
from __future__ import annotations

import argparse
import ast
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from _common import compiled_as_installed, installed_package
from bugbear import BugBearChecker

from flake8_weakglobals.rules.analyze_module import analyze
from flake8_weakglobals.frontends.flake8_plugin import WeakGlobalsChecker

FLAKE8 = """
import sys
import flake8.plugins.finder as finder
if sys.argv.pop(1) == "without":
    finder.BANNED_PLUGINS["flake8-weakglobals"] = "0 (hidden for the benchmark)"
from flake8.main.cli import main
sys.exit(main())
"""


def flake8_seconds(variant: str, root: Path) -> tuple[float, float]:
    """Wall time and CPU time (flake8 and its workers) of one ``flake8 --select WG --jobs 2`` run."""
    command = [sys.executable, "-c", FLAKE8, variant, "--select", "WG", "--jobs", "2", str(root)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def weakglobals_seconds(jobs: int, root: Path) -> tuple[float, float]:
    """Wall time and CPU time (the command and its workers) of one ``weakglobals --jobs N`` run. On a
    machine that other work shares, the CPU time says what the pool costs when the wall time cannot."""
    command = [sys.executable, "-m", "flake8_weakglobals.frontends.command", "--jobs", str(jobs), str(root)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-flake8", action="store_true", help="skip the flake8 runs (the slowest part)")
    parser.add_argument("--quick", action="store_true", help="torch/nn/modules only, one flake8 run each: a smoke run")
    arguments = parser.parse_args()
    compiled_as_installed()
    root = installed_package("torch") / "nn" / "modules" if arguments.quick else installed_package("torch")
    paths = []
    for path in sorted(root.rglob("*.py")):
        try:
            ast.parse(path.read_bytes())  # also warms the page cache
        except SyntaxError:
            continue  # a few test files use newer syntax
        paths.append(path)
    print(f"torch {root.relative_to(root.parents[1])}: {len(paths):,} files, Python {sys.version.split()[0]}\n")

    # One pass per step, file by file as flake8 works (read, parse, check, drop the tree), so no step runs
    # in a heap another one grew: the garbage collector's cost would leak from one step into the next.
    def each_file(check: Callable[[Path, ast.Module, list[str]], object]) -> tuple[float, float]:
        parse = checking = 0.0
        for path in paths:
            text = path.read_text(encoding="utf-8")
            lines = text.splitlines(keepends=True)
            start = time.perf_counter()
            tree = ast.parse(text)
            parse += time.perf_counter() - start
            start = time.perf_counter()
            check(path, tree, lines)
            checking += time.perf_counter() - start
        return parse, checking

    parse, _ = each_file(lambda path, tree, lines: None)
    _, plugin = each_file(lambda path, tree, lines: list(WeakGlobalsChecker(tree, lines, str(path)).run()))
    _, analysis = each_file(lambda path, tree, lines: analyze(tree, "".join(lines)))
    _, bugbear = each_file(lambda path, tree, lines: list(BugBearChecker(tree=tree, filename=str(path), lines=lines).run()))
    print("| step (same files) | seconds | / ast.parse |")
    print("|---|---|---|")
    for label, seconds in (
        ("ast.parse", parse),
        ("flake8-weakglobals plugin (prefilter + analysis)", plugin),
        ("analysis alone, every file", analysis),
        ("flake8-bugbear checker", bugbear),
    ):
        print(f"| {label} | {seconds:.2f} | {seconds / parse:.2f}x |")
    runs = 1 if arguments.quick else 2
    rounds = [(weakglobals_seconds(1, root), weakglobals_seconds(2, root)) for _ in range(2 * runs)]  # interleaved
    (serial, serial_cpu), (parallel, parallel_cpu) = min(one for one, _ in rounds), min(two for _, two in rounds)
    print(f"\n| `weakglobals` over the tree (best of {2 * runs}) | wall seconds | speed-up | CPU seconds |")
    print("|---|---|---|---|")
    print(f"| --jobs 1 | {serial:.1f} | 1.00x | {serial_cpu:.1f} |")
    print(f"| --jobs 2 | {parallel:.1f} | {serial / parallel:.2f}x | {parallel_cpu:.1f} |")
    if arguments.skip_flake8:
        print(f"\nTargets: analysis {analysis / parse:.2f}x ast.parse (<= 0.5x); --jobs 2 {serial / parallel:.2f}x faster (>= 1.3x)")
        return
    pairs = [(flake8_seconds("without", root), flake8_seconds("with", root)) for _ in range(runs)]  # interleaved
    without, with_plugin = min(pair[0] for pair in pairs), min(pair[1] for pair in pairs)
    print(f"\n| `flake8 --select WG --jobs 2` over the tree (best of {runs}) | wall seconds | CPU seconds |")
    print("|---|---|---|")
    print(f"| without flake8-weakglobals | {without[0]:.1f} | {without[1]:.1f} |")
    print(
        f"| with flake8-weakglobals | {with_plugin[0]:.1f} (+{(with_plugin[0] / without[0] - 1) * 100:.1f}%) "
        f"| {with_plugin[1]:.1f} (+{(with_plugin[1] / without[1] - 1) * 100:.1f}%) |"
    )
    print(
        f"\nTargets: analysis {analysis / parse:.2f}x ast.parse (<= 0.5x); --jobs 2 {serial / parallel:.2f}x faster "
        f"(>= 1.3x); plugin adds {(with_plugin[0] / without[0] - 1) * 100:.1f}% wall, "
        f"{(with_plugin[1] / without[1] - 1) * 100:.1f}% CPU to flake8 (<= 10%)"
    )

if __name__ == "__main__":
    main()
