"""What the codemod costs, side by side in one run, over the installed torch tree (files read once first,
so every step starts from a warm page cache).

    python benchmarks/bench_apply.py

1. read + ``ast.parse`` of every file: the floor for any tool that looks at every file;
2. ``python -m fixes.apply --check --jobs 1`` (in-process): read, prefilter, parse, analyse every file,
   and rewrite + verify with libcst only the files with fixable findings;
3. read + ``libcst.parse_module`` of every file: what a codemod that parses everything with libcst pays
   before it has looked at anything (TorchFix, Fixit).

Targets: (2) <= 1.5x (1); (2) >= 5x faster than (3).
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.metadata
import importlib.util
import io
import sys
from pathlib import Path
from typing import Callable

import libcst
from _common import installed_package, timed

from fixes.apply import main as apply_main


def parse_all(paths: list[Path], parse: Callable[[str], object]) -> None:
    for path in paths:
        try:
            parse(path.read_bytes().decode("utf-8"))
        except Exception:  # files in newer syntax fail alike in every step
            pass


def run_codemod(root: Path) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return apply_main(["--check", "--jobs", "1", str(root)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="torch/nn/modules only: a smoke run")
    root = installed_package("torch") / "nn" / "modules" if parser.parse_args().quick else installed_package("torch")
    paths = sorted(root.rglob("*.py"))
    for path in paths:
        path.read_bytes()  # warm the page cache for every step alike
    print(f"torch tree: {len(paths):,} files, Python {sys.version.split()[0]}, libcst {importlib.metadata.version('libcst')}\n")
    floor = timed(lambda: parse_all(paths, ast.parse))
    codemod = timed(lambda: run_codemod(root))
    everything = timed(lambda: parse_all(paths, libcst.parse_module))
    print("| step | seconds | / read + ast.parse |")
    print("|---|---|---|")
    print(f"| read + ast.parse, every file | {floor:.1f} | 1.00x |")
    print(f"| python -m fixes.apply --check --jobs 1 | {codemod:.1f} | {codemod / floor:.2f}x |")
    print(f"| read + libcst.parse_module, every file | {everything:.1f} | {everything / floor:.2f}x |")
    print(f"\nTargets: codemod {codemod / floor:.2f}x ast.parse (<= 1.5x); {everything / codemod:.1f}x faster than libcst on every file (>= 5x)")


if __name__ == "__main__":
    main()
