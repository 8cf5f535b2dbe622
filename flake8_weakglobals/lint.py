"""``weakglobals PATH...``: the linter without flake8, for the pre-commit hook and for scripts.

Prints ``path:line:col: WG001 message`` for each finding, honours ``# noqa`` as flake8 does, and reads
``[tool.weakglobals]`` from pyproject.toml. Exit codes: 0 nothing found, 1 findings, 2 usage errors, bad
configuration, or files that could not be read or parsed (the other files are still checked), 130
interrupted (Ctrl-C, SIGTERM).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional, Sequence

from . import __version__
from .checking import check_file
from .config import Settings, add_arguments, command_settings
from .sources import python_files
from .terminal import Progress, paint, command_line


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="weakglobals",
        description="Find module- and class-level containers that keep PyTorch modules, parameters and "
        "tensors alive (the flake8-weakglobals rules, without flake8).",
        epilog="Exit codes: 0 nothing found; 1 findings; 2 usage errors or files that could not be read or parsed; "
        "130 interrupted.",
    )
    add_arguments(parser)
    parser.add_argument("--version", action="version", version=f"flake8-weakglobals {__version__}")
    return parser


@command_line
def main(argv: Optional[Sequence[str]] = None) -> int:
    arguments = build_parser().parse_args(argv)
    settings = command_settings(arguments)
    progress = Progress(0)  # until the files are listed
    try:
        files = list(python_files(arguments.paths, settings.exclude))
        progress = Progress(len(files))
        found, errors = _check(files, settings, progress)
    except KeyboardInterrupt:
        progress.close()
        print("interrupted", file=sys.stderr)
        return 130
    progress.close()
    return 2 if errors else 1 if found else 0


def _check(files: list[Path], settings: Settings, progress: Progress) -> tuple[int, int]:
    """Prints each file's findings and errors as it goes; returns how many of each."""
    found = errors = 0
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
    return found, errors


if __name__ == "__main__":
    raise SystemExit(main())
