"""``weakglobals PATH...``: the linter without flake8, for the pre-commit hook and for scripts.

Prints ``path:line:col: WG001 message`` for each finding, honours ``# noqa`` as flake8 does, and reads
``[tool.weakglobals]`` from pyproject.toml. Exit codes: 0 nothing found, 1 findings, 2 usage errors, bad
configuration, or files that could not be read or parsed (the other files are still checked).
"""
from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

from . import __version__
from .checking import check_file
from .config import add_arguments, command_settings
from .sources import python_files
from .terminal import Progress, paint, quiet_on_broken_pipe


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="weakglobals",
        description="Find module- and class-level containers that keep PyTorch modules, parameters and "
        "tensors alive (the flake8-weakglobals rules, without flake8).",
        epilog="Exit codes: 0 nothing found; 1 findings; 2 usage errors or files that could not be read or parsed.",
    )
    add_arguments(parser)
    parser.add_argument("--version", action="version", version=f"flake8-weakglobals {__version__}")
    return parser


@quiet_on_broken_pipe
def main(argv: Optional[Sequence[str]] = None) -> int:
    arguments = build_parser().parse_args(argv)
    settings = command_settings(arguments)
    found = errors = 0
    files = list(python_files(arguments.paths, settings.exclude))
    progress = Progress(len(files))
    for done, path in enumerate(files, start=1):
        progress.update(done)
        checked = check_file(path, settings)
        if checked.error is not None or checked.findings:
            progress.clear()
        if checked.error is not None:
            errors += 1
            print(f"{path}:{checked.error_line}: {checked.error}", file=sys.stderr)
        for finding in checked.findings:
            found += 1
            code, _, message = finding.message.partition(" ")
            print(f"{paint(str(path), '1')}:{finding.line}:{finding.col + 1}: {paint(code, '31')} {message}")
    progress.close()
    return 2 if errors else 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
