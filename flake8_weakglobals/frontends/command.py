"""``weakglobals PATH...``: the linter without flake8, for the pre-commit hook, CI and editors.

Prints each finding as ``path:line:col: WG001 message`` (or grouped, JSON, GitHub annotations, SARIF),
honours ``# noqa`` as flake8 does, and reads ``[tool.weakglobals]`` from pyproject.toml. ``-`` checks
standard input (named by ``--stdin-filename``); ``--explain WG001`` prints a rule's documentation. Exit
codes: 0 nothing found (or ``--exit-zero``), 1 findings, 2 usage errors, bad configuration, or files that
could not be read or parsed (the other files are still checked), 130 interrupted (Ctrl-C, SIGTERM).
"""
from __future__ import annotations

import argparse
import collections
import difflib
import os
import sys
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterator, Optional, Sequence, TextIO

from .. import __version__
from ..rules.codes import RULES
from ..rules.docs import DOCS, explanation
from ..index.import_order import importers_first
from ..index.project import files_stay_put
from ..source import parse_once
from ..source.python_files import SourceError, decode_source, excluded_stdin, python_files
from .check_one_file import CheckedFile, check_file, check_source
from .config import Settings, add_arguments, command_settings, entry_point
from .output_formats import DOCUMENTS, FORMATS, FileReport, SourceFix, make
from .parallel import ordered_results
from .terminal import Progress, command_line, exit_after

STDIN = Path("-")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=entry_point("flake8_weakglobals.frontends.command", "weakglobals"),
        description="Find module- and class-level containers that keep PyTorch modules, parameters and "
        "tensors alive (the flake8-weakglobals rules, without flake8).",
        epilog="Exit codes: 0 nothing found; 1 findings; 2 usage errors or files that could not be read or parsed; "
        "130 interrupted. Colour on a terminal unless NO_COLOR is set (FORCE_COLOR forces it); a progress line "
        "on stderr for runs of 200 files or more on a terminal.",
    )
    add_arguments(parser)
    parser.add_argument("--output-format", choices=FORMATS, default="text", help="how findings are printed (default: text)")
    parser.add_argument("--show-source", action="store_true", help="under each finding: its source line, the evidence line, why it matters and what to do")
    parser.add_argument("--statistics", action="store_true", help="count findings per code at the end")
    parser.add_argument("--count", action="store_true", help="print the number of findings at the end")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    parser.add_argument("--jobs", "-j", type=int, help="worker processes (default: all cores; 1 runs in-process)")
    parser.add_argument("--stdin-filename", metavar="PATH", help="with the path '-': the name standard input is reported under")
    parser.add_argument("--explain", metavar="CODE", help="print a rule's documentation and exit")
    volume = parser.add_mutually_exclusive_group()
    volume.add_argument("-q", "--quiet", action="store_true", help="print only the names of files with findings")
    volume.add_argument("-v", "--verbose", action="store_true", help="also print a summary of the run on stderr")
    parser.add_argument("--version", action="version", version=f"flake8-weakglobals {__version__}")
    return parser


@dataclass(frozen=True)
class Job:
    """What a worker needs to check a file, besides its path."""

    settings: Settings
    fixes: bool = False  # attach the codemod's rewrite (SARIF)


@command_line
def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    arguments = parser.parse_args(argv)
    if arguments.explain is not None:
        code = arguments.explain.strip().upper()
        if code not in DOCS:
            parser.error(f"--explain: {arguments.explain!r} is not a rule (known: {', '.join(DOCS)})")
        print(explanation(code), end="")
        return 0
    _check_usage(parser, arguments)
    stdin = arguments.paths == [STDIN]
    settings = command_settings(_settings_arguments(arguments) if stdin else arguments)
    output = make(arguments.output_format, arguments.show_source, arguments.quiet)
    job = Job(settings, fixes=arguments.output_format == "sarif")
    summary = Summary()
    progress = Progress(0)  # until the files are listed
    with files_stay_put():  # the linter writes nothing: each module's file is looked at once
        try:
            if stdin:
                reports: Iterator[FileReport] = iter([_stdin_report(Path(arguments.stdin_filename or "stdin"), job)])
            else:
                files = list(python_files(arguments.paths, settings.exclude))
                progress = Progress(len(files))
                reports = ordered_results(lint_file, files, job, arguments.jobs or os.cpu_count() or 1, parse_once.batch, importers_first)
            for report in reports:
                summary.add(report)
                progress.update(summary.checked)
                if report.error is not None or report.findings:
                    progress.clear()
                if report.error is not None:
                    print(f"{report.path}:{report.error_line}: {report.error}", file=sys.stderr)
                output.file(report)
        except KeyboardInterrupt:
            progress.close()
            print("interrupted", file=sys.stderr)
            return 130
        except BrokenProcessPool:  # a worker was killed (out of memory, say)
            progress.close()
            print(f"a worker process died after {summary.checked} files", file=sys.stderr)
            return 2
    progress.close()
    output.finish()
    summary.print(arguments, sys.stderr if arguments.output_format in DOCUMENTS else sys.stdout)
    if summary.errors:
        return 2
    return 1 if summary.found and not arguments.exit_zero else 0


def _check_usage(parser: argparse.ArgumentParser, arguments: argparse.Namespace) -> None:
    """Combinations that cannot mean anything: a clear usage error (exit 2) rather than a surprise."""
    if arguments.jobs is not None and arguments.jobs < 1:
        parser.error("--jobs must be at least 1")
    if STDIN in arguments.paths and len(arguments.paths) > 1:
        parser.error("'-' (standard input) must be the only path")
    if arguments.stdin_filename is not None and arguments.paths != [STDIN]:
        parser.error("--stdin-filename names standard input: give '-' as the path")
    if arguments.quiet and arguments.output_format != "text":
        parser.error(f"-q prints file names only; it cannot be combined with --output-format {arguments.output_format}")
    if arguments.show_source and arguments.output_format not in ("text", "grouped"):
        parser.error(f"--show-source is for the text and grouped formats, not {arguments.output_format}")


def _settings_arguments(arguments: argparse.Namespace) -> argparse.Namespace:
    """For standard input, configuration is looked up from where ``--stdin-filename`` says the file is."""
    named = Path(arguments.stdin_filename or "stdin").parent
    return argparse.Namespace(**{**vars(arguments), "paths": [named if named.is_dir() else Path(".")]})


def lint_file(path: Path, job: Job) -> FileReport:
    """One file's report; runs in a worker process with ``--jobs``."""
    return _report(check_file(path, job.settings), job)


def _stdin_report(name: Path, job: Job) -> FileReport:
    if excluded_stdin(name, job.settings.exclude):
        return FileReport(name, skipped=True)
    try:
        source = decode_source(name, sys.stdin.buffer.read())
    except SourceError as error:
        return FileReport(name, error=str(error), error_line=error.line)
    return _report(check_source(name, source, job.settings), replace(job, fixes=False))  # nothing on disk to rewrite


def _report(checked: CheckedFile, job: Job) -> FileReport:
    if checked.error is not None:
        return FileReport(checked.path, error=checked.error, error_line=checked.error_line)
    if checked.tree is None or checked.source is None:
        return FileReport(checked.path, skipped=True)
    findings = tuple(checked.findings)
    lines = checked.source.text.splitlines() if findings else []
    named = {number for finding in findings for number in (finding.line, finding.evidence.line)}
    fix = _source_fix(checked.path, job.settings) if job.fixes and any(finding.fixable for finding in findings) else None
    return FileReport(checked.path, findings, lines={number: lines[number - 1] for number in named if number <= len(lines)}, fix=fix)


def _source_fix(path: Path, settings: Settings) -> Optional[SourceFix]:
    """What ``python -m fixes.apply --runtime import`` would write, as replacements; None when it would
    refuse. The codemod's own pipeline, verification included: a fix in the SARIF log is one it would make."""
    from fixes.job import process  # the codemod loads only when a SARIF log wants its fixes

    result = process(path, replace(settings, runtime="import"))
    if result.new_text is None:
        return None
    old = result.old_text.splitlines(keepends=True)
    new = result.new_text.splitlines(keepends=True)
    offsets = [0]
    for line in old:
        offsets.append(offsets[-1] + len(line))
    replacements = tuple(
        (offsets[start], offsets[end] - offsets[start], "".join(new[new_start:new_end]))
        for tag, start, end, new_start, new_end in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
        if tag != "equal"
    )
    fixed = ", ".join(f"{finding.code} {finding.name}" for finding in result.fixed)
    return SourceFix(f"python -m fixes.apply --runtime import {path.as_posix()}: {fixed}", replacements)


class Summary:
    """Counts as reports come in; prints ``--statistics``, ``--count`` and ``-v``'s summary at the end."""

    def __init__(self) -> None:
        self.checked = self.skipped = self.errors = self.found = self.files_with_findings = 0
        self.by_code: collections.Counter[str] = collections.Counter()

    def add(self, report: FileReport) -> None:
        self.checked += 1
        self.skipped += report.skipped
        self.errors += report.error is not None
        self.found += len(report.findings)
        self.files_with_findings += bool(report.findings)
        self.by_code.update(finding.code for finding in report.findings)

    def print(self, arguments: argparse.Namespace, stream: TextIO) -> None:
        """``stream`` is stdout, or stderr when stdout carries a JSON or SARIF document."""
        if arguments.statistics:
            for code in sorted(self.by_code):
                print(f"{self.by_code[code]:<5} {code} {RULES[code].summary}", file=stream)
        if arguments.count:
            print(self.found, file=stream)
        if arguments.verbose:
            print(
                f"{_plural(self.found, 'finding')} in {_plural(self.files_with_findings, 'file')}; "
                f"{_plural(self.checked, 'file')} checked ({self.skipped} skipped by the prefilter: no framework "
                f"names), {_plural(self.errors, 'error')}",
                file=sys.stderr,
            )


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"


def run() -> None:
    """The installed command's entry point (``python -m`` too)."""
    exit_after(main)


if __name__ == "__main__":
    run()
