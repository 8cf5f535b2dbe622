"""What one very large file costs (generated code, vendored tables), side by side in one run.

    python benchmarks/bench_big_file.py

A generated 10 MB module: about 41,000 small functions, with pinning dicts at the top, the middle and the end.
1. read + ``ast.parse``: the floor;
2. ``weakglobals FILE`` (the hook): read, parse, analyse, noqa;
3. ``python -m fixes.apply --check``: also the libcst rewrite and its verification (compile, a second
   analysis, pyflakes before and after);
4. ``python -m fixes.apply``: the same, and the atomic write.

The codemod's cost is linear in the file: before commit b2213c2 it rescanned every top-level statement for
every chunk, and step 4 took 6 minutes on this file.
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import io
import shutil
import sys
import tempfile
from pathlib import Path

from _common import timed

from fixes.apply import main as apply_main
from flake8_weakglobals.frontends.command import main as lint_main

HEADER = "from torch import nn\n\n"
PINNING = "registry_{0} = {{}}\n\n\ndef remember_{0}(module: nn.Module) -> None:\n    registry_{0}[module] = {0}\n"
HELPER = (
    "\n\ndef helper_{0}(module: nn.Module, scale: int = {0}) -> int:\n    '''Generated helper {0}.'''\n"
    "    total = scale * 2 + len(list(module.children()))\n    if total > {0}:\n        return total - 1\n    return total\n"
)


def generated_module(size: int) -> str:
    parts, length, index = [HEADER, PINNING.format(0)], 0, 0
    while length < size:
        parts.append(HELPER.format(index))
        length, index = length + len(parts[-1]), index + 1
        if length >= size // 2 > length - len(parts[-1]):
            parts.append("\n\n" + PINNING.format(1))
    parts.append("\n\n" + PINNING.format(2))
    return "".join(parts)


def quietly(main: object, arguments: list[str]) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(arguments)  # type: ignore[operator,no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a 1 MB file: a smoke run")
    size = 1_000_000 if parser.parse_args().quick else 10_000_000
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "generated.py"
        text = generated_module(size)
        path.write_text(text)
        lines = text.count("\n")
        print(f"generated module: {len(text) / 1e6:.1f} MB, {lines:,} lines, Python {sys.version.split()[0]}\n")
        floor = timed(lambda: ast.parse(path.read_bytes().decode("utf-8")))
        lint = timed(lambda: quietly(lint_main, [str(path)]))
        check = timed(lambda: quietly(apply_main, ["--check", "--runtime", "import", str(path)]))
        copy = Path(directory) / "copy.py"
        shutil.copyfile(path, copy)
        write = timed(lambda: quietly(apply_main, ["--runtime", "import", str(copy)]))
        assert copy.read_text().count("WeakIdMap()") == 3, "the three registries were not all fixed"
    print("| step | seconds | / read + ast.parse |")
    print("|---|---|---|")
    for name, seconds in (
        ("read + ast.parse", floor),
        ("weakglobals FILE", lint),
        ("python -m fixes.apply --check", check),
        ("python -m fixes.apply (writes)", write),
    ):
        print(f"| {name} | {seconds:.1f} | {seconds / floor:.2f}x |")


if __name__ == "__main__":
    main()
