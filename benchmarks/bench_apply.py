"""What the codemod costs, side by side in one run, over the installed torch tree (files read once first,
so every step starts from a warm page cache).

    python benchmarks/bench_apply.py [--repeat N] [--no-libcst] [--quick]

1. read + ``ast.parse`` of every file: the floor for any tool that looks at every file;
2. ``python -m fixes.apply --check --jobs 1``: read, prefilter, parse, analyse every file, ask the other
   modules about the containers it would fix, and rewrite + verify with libcst only the files with fixable
   findings;
3. read + ``libcst.parse_module`` of every file: what a codemod that parses everything with libcst pays
   before it has looked at anything (TorchFix, Fixit); once, it is slow.

(1) and (2) each run in a fresh interpreter, as a user runs them (the codemod keeps its project index for
the life of its process, so a second run in one process would be warm), alternated ``--repeat`` times; the
ratio is taken within each round and its min and median reported.

Targets: (2) <= 1.5x (1); (2) >= 5x faster than (3).
"""
from __future__ import annotations

import argparse
import importlib.metadata
import statistics
import subprocess
import sys
from pathlib import Path

from _common import compiled_as_installed, installed_package, timed

FLOOR = """
import ast, sys
from pathlib import Path
for path in sorted(Path(sys.argv[1]).rglob("*.py")):
    try:
        ast.parse(path.read_bytes().decode("utf-8"))
    except Exception:  # files in newer syntax fail alike in every step
        pass
"""

LIBCST = FLOOR.replace("import ast, sys", "import libcst, sys").replace("ast.parse(", "libcst.parse_module(")


def run(arguments: list[str]) -> None:
    subprocess.run([sys.executable, *arguments], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="torch/nn/modules only: a smoke run")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of (1) and (2), alternated (default 3)")
    parser.add_argument("--no-libcst", action="store_true", help="skip (3)")
    options = parser.parse_args()
    compiled_as_installed()
    root = installed_package("torch") / "nn" / "modules" if options.quick else installed_package("torch")
    paths = sorted(root.rglob("*.py"))
    for path in paths:
        path.read_bytes()  # warm the page cache for every step alike
    print(f"torch tree: {len(paths):,} files, Python {sys.version.split()[0]}, libcst {importlib.metadata.version('libcst')}, "
          f"{options.repeat} rounds\n")
    rounds = []
    for _ in range(options.repeat):
        floor = timed(lambda: run(["-c", FLOOR, str(root)]))
        codemod = timed(lambda: run(["-m", "fixes.apply", "--check", "--jobs", "1", str(root)]))
        rounds.append((floor, codemod))
    ratios = [codemod / floor for floor, codemod in rounds]
    floors, codemods = [floor for floor, _ in rounds], [codemod for _, codemod in rounds]
    print("| step | seconds, min | seconds, median | / read + ast.parse, min | median |")
    print("|---|---|---|---|---|")
    print(f"| read + ast.parse, every file | {min(floors):.1f} | {statistics.median(floors):.1f} | 1.00x | 1.00x |")
    print(f"| python -m fixes.apply --check --jobs 1 | {min(codemods):.1f} | {statistics.median(codemods):.1f} | "
          f"{min(ratios):.2f}x | {statistics.median(ratios):.2f}x |")
    if not options.no_libcst:
        everything = timed(lambda: run(["-c", LIBCST, str(root)]))
        print(f"| read + libcst.parse_module, every file (once) | {everything:.1f} | | "
              f"{everything / statistics.median(floors):.2f}x | |")
        print(f"\nlibcst on every file is {everything / statistics.median(codemods):.1f}x the codemod (>= 5x)")
    print(f"Target: the codemod <= 1.5x ast.parse; median {statistics.median(ratios):.2f}x")


if __name__ == "__main__":
    main()
