"""How the linter and ``fixes.apply --check`` grow with the tree, side by side in one run.

    python benchmarks/bench_scaling.py [--tree DIR ...] [--quick] [--no-copies]

The trees (default: the installed torch and DeepSpeed; add others with ``--tree``, such as an unpacked
transformers wheel) are checked together, as one large code base, and also copied twice into a scratch
directory (``once/`` holds one copy; ``twice/`` two copies side by side) so that the same code at twice the
size is measured with nothing else changed. Each step is a fresh process, as a user runs it; its CPU time
(all its processes, start-up included) and wall time are taken over three interleaved rounds, min and median:

1. read + ``ast.parse`` of every file (in a fresh process too): the floor;
2. ``weakglobals --select WG --exit-zero --jobs 1`` and ``--jobs 2``;
3. ``python -m fixes.apply --check --jobs 1`` and ``--jobs 2``;
4. ``weakglobals --jobs 1`` over ``once/`` and ``twice/``: twice the code should cost twice as much.

Each step's CPU time is also divided by the floor's in the same round, min and median over the rounds: the
targets are judged on those ratios, which a machine that slows down for a while (this one does, by a
tenth and more) moves least, where a min over all rounds may pair a fast floor with a slow step.
Then the per-file CPU cost, and what it makes of a monorepo of 100,000 files at ``--jobs 2``.
Targets (the speed issue): the linter and ``--check`` at ``--jobs 1`` <= 1.5x the floor; twice the tree
<= 2.3x once.
"""
from __future__ import annotations

import argparse
import os
import statistics
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import compiled_as_installed, installed_package

PARSE = """
import ast, sys
from pathlib import Path
for root in sys.argv[1:]:
    for path in sorted(Path(root).rglob("*.py")):
        try:
            ast.parse(path.read_bytes())
        except (SyntaxError, ValueError):
            pass
"""
MONOREPO_FILES = 100_000


def measured(command: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds (the process and its children) of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, cwd=cwd, env={**os.environ, "WEAKGLOBALS_NO_CACHE": "1"})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def best(commands: dict[str, list[str]], cwd: Path, rounds: int) -> dict[str, tuple[float, float, float, list[float]]]:
    """Each command's best wall, best CPU and median CPU time over ``rounds`` interleaved rounds (a load
    that comes and goes shows as a median far from the min), and its CPU time in each round."""
    runs: dict[str, list[tuple[float, float]]] = {label: [] for label in commands}
    for _ in range(rounds):
        for label, command in commands.items():
            runs[label].append(measured(command, cwd))
    return {
        label: (
            min(wall for wall, _ in found), min(cpu for _, cpu in found), statistics.median(cpu for _, cpu in found),
            [cpu for _, cpu in found],
        )
        for label, found in runs.items()
    }


def per_round(results: dict[str, tuple[float, float, float, list[float]]], label: str, floor: str) -> tuple[float, float]:
    """The min and median over the rounds of ``label``'s CPU time over the floor's in the same round: a
    ratio of two runs made side by side, which a machine that slows down for a while moves least."""
    ratios = [cpu / base for cpu, base in zip(results[label][3], results[floor][3])]
    return min(ratios), statistics.median(ratios)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, action="append", default=[], help="another source tree to add (repeatable)")
    parser.add_argument("--quick", action="store_true", help="torch/nn only, one round: a smoke run")
    parser.add_argument("--no-copies", action="store_true", help="skip step 4 (the tree once and twice over)")
    arguments = parser.parse_args()
    compiled_as_installed()
    trees = [installed_package("torch") / "nn"] if arguments.quick else [installed_package("torch"), installed_package("deepspeed"), *arguments.tree]
    trees = [tree.resolve() for tree in trees]
    files = sum(1 for tree in trees for _ in tree.rglob("*.py"))
    rounds = 1 if arguments.quick else 3
    python = sys.executable
    lint = [python, "-m", "flake8_weakglobals.frontends.command", "--select", "WG", "--exit-zero"]
    check = [python, "-m", "fixes.apply", "--check"]
    named = [str(tree) for tree in trees]
    print(f"trees: {', '.join(tree.name for tree in trees)}: {files:,} files, Python {sys.version.split()[0]}\n")
    results = best({
        "read + ast.parse": [python, "-c", PARSE, *named],
        "weakglobals --jobs 1": [*lint, "--jobs", "1", *named],
        "weakglobals --jobs 2": [*lint, "--jobs", "2", *named],
        "fixes.apply --check --jobs 1": [*check, "--jobs", "1", *named],
        "fixes.apply --check --jobs 2": [*check, "--jobs", "2", *named],
    }, Path.cwd(), rounds)
    floor = "read + ast.parse"
    floor_wall, floor_cpu, floor_median, _ = results[floor]
    print(f"| step (all trees, {rounds} rounds) | wall seconds, min | / floor | CPU seconds, min | / floor | CPU seconds, median | / floor | CPU / the same round's floor, min | median |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, (wall, cpu, median, _) in results.items():
        low, middle = per_round(results, label, floor)
        print(f"| {label} | {wall:.1f} | {wall / floor_wall:.2f}x | {cpu:.1f} | {cpu / floor_cpu:.2f}x | {median:.1f} | {median / floor_median:.2f}x | {low:.2f}x | {middle:.2f}x |")

    lint_ratio = per_round(results, "weakglobals --jobs 1", floor)
    check_ratio = per_round(results, "fixes.apply --check --jobs 1", floor)
    per_file = results["weakglobals --jobs 1"][1] / files
    per_file_check = results["fixes.apply --check --jobs 1"][1] / files
    speedup = results["weakglobals --jobs 1"][0] / results["weakglobals --jobs 2"][0]
    print(
        f"\nPer file: lint {per_file * 1000:.1f} ms, --check {per_file_check * 1000:.1f} ms of CPU. A monorepo of "
        f"{MONOREPO_FILES:,} files: lint about {per_file * MONOREPO_FILES / 60:.0f} CPU minutes "
        f"({per_file * MONOREPO_FILES / 60 / speedup:.0f} minutes of wall at --jobs 2, {speedup:.2f}x measured), "
        f"--check about {per_file_check * MONOREPO_FILES / 60:.0f} CPU minutes."
    )
    print(
        f"\nTargets (CPU over the same round's floor, min / median): lint {lint_ratio[0]:.2f}x / {lint_ratio[1]:.2f}x "
        f"(<= 1.5x); --check {check_ratio[0]:.2f}x / {check_ratio[1]:.2f}x (<= 1.5x)"
    )
    if arguments.no_copies:
        return
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        for where in (root / "once" / "a", root / "twice" / "a", root / "twice" / "b"):
            for tree in trees:
                shutil.copytree(tree, where / tree.name, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        sizes = best({"once": [*lint, "--jobs", "1", "once"], "twice": [*lint, "--jobs", "1", "twice"]}, root, rounds)
    print(f"\n| `weakglobals --jobs 1` over copies ({rounds} rounds) | files | CPU seconds, min | / once |")
    print("|---|---|---|---|")
    print(f"| once | {files:,} | {sizes['once'][1]:.1f} | 1.00x |")
    print(f"| twice | {2 * files:,} | {sizes['twice'][1]:.1f} | {sizes['twice'][1] / sizes['once'][1]:.2f}x |")
    print(f"\nTarget: twice the tree {sizes['twice'][1] / sizes['once'][1]:.2f}x once (<= 2.3x)")


if __name__ == "__main__":
    main()
