"""What the plugin costs, side by side in one run, over the installed torch tree.

    python benchmarks/bench_lint.py [--skip-flake8]

1. In-process, on the same files and the same parsed trees: ``ast.parse`` of every file; the plugin as
   flake8 runs it (prefilter + analysis); the analysis alone on every tree; flake8-bugbear's checker.
2. ``flake8 --select WG`` over the tree, wall time with and without this plugin installed (the same flake8
   and plugins otherwise: the run without it lists ``flake8-weakglobals`` among flake8's banned plugins).

Targets: the analysis <= 0.5x the ``ast.parse`` time; the plugin adds <= 10% to a flake8 run.
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from bugbear import BugBearChecker

from flake8_weakglobals.analysis import analyze
from flake8_weakglobals.plugin import WeakGlobalsChecker

FLAKE8 = """
import sys
import flake8.plugins.finder as finder
if sys.argv.pop(1) == "without":
    finder.BANNED_PLUGINS["flake8-weakglobals"] = "0 (hidden for the benchmark)"
from flake8.main.cli import main
sys.exit(main())
"""


def torch_tree() -> Path:
    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.submodule_search_locations
    return Path(next(iter(spec.submodule_search_locations)))


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def flake8_seconds(variant: str, root: Path) -> float:
    command = [sys.executable, "-c", FLAKE8, variant, "--select", "WG", "--jobs", "2", str(root)]
    start = time.perf_counter()
    subprocess.run(command, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-flake8", action="store_true", help="only the in-process comparison")
    parser.add_argument("--quick", action="store_true", help="torch/nn/modules only, one flake8 run each: a smoke run")
    arguments = parser.parse_args()
    root = torch_tree() / "nn" / "modules" if arguments.quick else torch_tree()
    sources = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            ast.parse(text)
        except SyntaxError:
            continue  # a few test files use newer syntax
        sources.append((path, text, text.splitlines(keepends=True)))
    lines_total = sum(len(lines) for _, _, lines in sources)
    print(f"torch {root.parent.name}/{root.name}: {len(sources):,} files, {lines_total:,} lines, Python {sys.version.split()[0]}\n")

    parse = timed(lambda: [ast.parse(text) for _, text, _ in sources])
    trees = [ast.parse(text) for _, text, _ in sources]
    plugin = timed(lambda: [list(WeakGlobalsChecker(tree, lines).run()) for tree, (_, _, lines) in zip(trees, sources)])
    analysis = timed(lambda: [analyze(tree) for tree in trees])
    bugbear = timed(
        lambda: [list(BugBearChecker(tree=tree, filename=str(path), lines=lines).run()) for tree, (path, _, lines) in zip(trees, sources)]
    )
    print("| step (same files, same trees) | seconds | / ast.parse |")
    print("|---|---|---|")
    for label, seconds in (
        ("ast.parse", parse),
        ("flake8-weakglobals plugin (prefilter + analysis)", plugin),
        ("analysis alone, every file", analysis),
        ("flake8-bugbear checker", bugbear),
    ):
        print(f"| {label} | {seconds:.2f} | {seconds / parse:.2f}x |")
    if arguments.skip_flake8:
        return
    runs = 1 if arguments.quick else 2
    without = min(flake8_seconds("without", root) for _ in range(runs))
    with_plugin = min(flake8_seconds("with", root) for _ in range(runs))
    print("\n| `flake8 --select WG --jobs 2` over the tree (best of 2) | seconds |")
    print("|---|---|")
    print(f"| without flake8-weakglobals | {without:.1f} |")
    print(f"| with flake8-weakglobals | {with_plugin:.1f} (+{(with_plugin / without - 1) * 100:.1f}%) |")
    print(f"\nTargets: analysis {analysis / parse:.2f}x ast.parse (<= 0.5x); plugin adds {(with_plugin / without - 1) * 100:.1f}% to flake8 (<= 10%)")


if __name__ == "__main__":
    main()
