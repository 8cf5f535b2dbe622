"""``python -m fixes.apply PATH...`` (also ``weakglobals-fix``): rewrite pinning containers into the runtime.

Exit codes: 0 nothing left to do; 1 changes needed (``--check``/``--diff``), findings left to fix by hand,
or (with ``--exit-non-zero-on-fix``) files changed; 2 usage errors, bad configuration, or files that could
not be read, parsed or safely rewritten; 130 interrupted. Errors go to stderr as ``path:line: message``.
"""
from __future__ import annotations

import argparse
import contextlib
import difflib
import os
import sys
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Optional, Sequence

from flake8_weakglobals import __version__
from flake8_weakglobals.frontends.config import RUNTIME_MODES, add_arguments, command_settings, entry_point
from flake8_weakglobals.frontends.parallel import interrupts_held, ordered_results
from flake8_weakglobals.frontends.terminal import Progress, command_line, exit_after, paint
from flake8_weakglobals.index.import_order import importers_first
from flake8_weakglobals.index.project import cache_read_only, files_stay_put
from flake8_weakglobals.source import parse_once
from flake8_weakglobals.source.python_files import python_files

from .atomic import Refused, replace_if_unchanged, write_atomically
from .job import FileResult, process
from .parts import parts_for
from .vendor import VendorConflict, plan_copy, vendored_lines


def build_parser(prog: str = "weakglobals-fix") -> argparse.ArgumentParser:
    """``prog`` is how the user ran us, for ``--help`` and usage errors (``python -m fixes.apply``)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Rewrite module- and class-level containers that pin modules, parameters and tensors "
        "into weak containers and caches: WeakIdMap, WeakValueMap, WeakIdSet, WeakIdList, weak_lru_cache (flake8-weakglobals).",
        epilog="Exit codes: 0 nothing left to do; 1 changes needed (--check/--diff) or findings left to fix "
        "by hand; 2 usage errors or files that could not be read, parsed or rewritten; 130 interrupted (files "
        "already written are complete, the others unchanged).",
    )
    add_arguments(parser)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--diff", action="store_true", help="write nothing; print a unified diff")
    mode.add_argument("--check", action="store_true", help="write nothing; exit 1 if anything would change")
    parser.add_argument(
        "--runtime", choices=RUNTIME_MODES,
        help="where the fixed code gets the runtime: inline, in each fixed file (default); vendor, a copy in the "
        "top-level package; import, the installed flake8_weakglobals.runtime",
    )
    parser.add_argument(
        "--unsafe-fixes", action="store_true",
        help="also make the fixes that may change what the program does (WG008's weak values: a lookup by name "
        "misses once the object's other owners let go; WG006's weak caches: not an lru_cache wrapper to isinstance "
        "or inspect); review each (config: unsafe-fixes = true)",
    )
    parser.add_argument("--jobs", "-j", type=int, help="worker processes (default: all cores; 1 runs in-process)")
    parser.add_argument("--exit-non-zero-on-fix", action="store_true", help="exit 1 when files were changed")
    volume = parser.add_mutually_exclusive_group()
    volume.add_argument("-q", "--quiet", action="store_true", help="print only errors and diffs")
    volume.add_argument("-v", "--verbose", action="store_true", help="also list files with nothing to do")
    parser.add_argument("--version", action="version", version=f"flake8-weakglobals {__version__}")
    return parser


@command_line
def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser(entry_point("fixes.apply", "weakglobals-fix"))
    arguments = parser.parse_args(argv)
    if arguments.jobs is not None and arguments.jobs < 1:
        parser.error("--jobs must be at least 1")
    settings = command_settings(arguments)
    report = Report(arguments)
    try:
        # a dry run writes nothing (the summary cache included), so it reads each module's file once; a run
        # that writes must look again
        with files_stay_put() if report.dry_run else contextlib.nullcontext(), cache_read_only() if report.dry_run else contextlib.nullcontext():
            files = list(python_files(arguments.paths, settings.exclude))
            report.begin(len(files))
            for result in ordered_results(process, files, settings, arguments.jobs or os.cpu_count() or 1, parse_once.batch, importers_first):
                report.add(result)
    except KeyboardInterrupt:
        report.stopped("interrupted")
        return 130
    except BrokenProcessPool:  # a worker was killed (out of memory, say): stop as an interrupt does
        report.stopped("a worker process died")
        return 2
    return report.finish()


class Report:
    """Takes each file's result as it comes: writes it (its runtime copy first), prints the outcome, and
    at the end picks the exit code. Writing as results arrive keeps an interrupted run's work."""

    def __init__(self, arguments: argparse.Namespace) -> None:
        self.arguments = arguments
        self.dry_run = arguments.diff or arguments.check
        self.progress = Progress(0)  # until the files are listed
        self.checked = 0
        self.changed = 0
        self.fixes = 0
        self.left = 0
        self.errors = 0
        self.copies: dict[Path, tuple[frozenset[str], Optional[str]]] = {}  # copy -> (its parts, why it could not be written)
        self.runtime_changes: dict[Path, tuple[str, str, str]] = {}  # dry runs: copy -> (action, old text, new text), shown last
        self.added_lines = 0  # lines the vendored copies add to the project
        self.inline_lines = 0  # lines the inline runtime adds to the files

    def begin(self, total: int) -> None:
        self.progress = Progress(total)

    def add(self, result: FileResult) -> None:
        self.checked += 1
        self.progress.update(self.checked)
        if result.error is not None:
            self._error(result.path, result.error_line, result.error)
        if result.changed:
            self._change(result)
        for left in result.left:
            self.left += 1
            self._say(f"{self._where(result.path, left.line, left.col)} {paint(left.code, '33')} "
                      f"{left.name} left as is: {left.fix_reason}")
        if self.arguments.verbose and not result.changed and not result.left and result.error is None:
            self._say(f"{result.path}: nothing to do")

    def finish(self) -> int:
        self.progress.close()
        self._show_runtime_changes()
        self._summary()
        if self.errors:
            return 2
        if (self.dry_run and self.changed) or self.left or (self.arguments.exit_non_zero_on_fix and self.changed):
            return 1
        return 0

    def stopped(self, why: str) -> None:
        """Says where a run that could not finish stopped, and that no file is half-written."""
        self.progress.close()
        self._show_runtime_changes()
        done = "would be changed" if self.dry_run else "were rewritten completely"
        print(f"{why} after {self.checked} of {self.progress.total} files: {self.changed} {done}, "
              "every other file is unchanged", file=sys.stderr)

    def _change(self, result: FileResult) -> None:
        assert result.new_text is not None
        blocked = self._runtime_copy(result.runtime_copy, result.runtime_names) if result.runtime_copy else None
        if blocked:
            self._error(result.path, result.fixed[0].line, f"left unchanged: {blocked}")
            return
        if self.dry_run:
            if self.arguments.diff:
                self._proof(result)
                self._diff(_relative(result.path), result.old_text, result.new_text)
            self._count(result)
        else:
            with interrupts_held():  # a Ctrl-C between the rename and the count would under-report
                try:
                    replace_if_unchanged(result.path, result.new_text.encode(result.encoding), result.digest)
                except Refused as error:
                    self._error(result.path, result.fixed[0].line, f"left unchanged: {error}")
                    return
                except OSError as error:
                    self._error(result.path, result.fixed[0].line, f"cannot write: {error.strerror or error}")
                    return
                self._count(result)
        fixed = ", ".join(f"{paint(outcome.code, '1')} {outcome.name}" for outcome in result.fixed)
        inline = f"; the inline runtime {'would add' if self.dry_run else 'adds'} {_lines(result.inline_lines)} " \
            f"({', '.join(sorted(result.runtime_names))})" if result.inline_lines else ""
        self._say(f"{paint(str(result.path), '1')}: {fixed}{inline}")
        if not self.arguments.diff:  # a diff printed the proof before the file's patch
            for line in _proof_lines(result):
                self._say(f"  {line}")

    def _proof(self, result: FileResult) -> None:
        """What each rewrite of the file rests on, printed before its diff as ``#`` lines, which ``git
        apply`` and ``patch`` skip as text between files: the reviewer reads the owners and every use,
        with their lines, beside the change they justify."""
        self.progress.clear()
        for line in _proof_lines(result):
            sys.stdout.write(f"# {line}\n")

    def _count(self, result: FileResult) -> None:
        self.changed += 1
        self.fixes += len(result.fixed)
        self.inline_lines += result.inline_lines

    def _runtime_copy(self, destination: Path, names: frozenset[str]) -> Optional[str]:
        """Write (or, dry, show) the vendored copy before the first file that imports it, and again when a
        later file needs a part it lacks; returns why it cannot be written, if so."""
        parts = frozenset(parts_for(names))
        held, blocked = self.copies.get(destination, (frozenset(), None))
        if blocked is not None or (destination in self.copies and parts <= held):
            return blocked
        blocked = self._write_runtime_copy(destination, parts | held)
        self.copies[destination] = (parts | held, blocked)
        return blocked

    def _write_runtime_copy(self, destination: Path, parts: frozenset[str]) -> Optional[str]:
        if self.dry_run and destination in self.runtime_changes:  # a part more for a copy still to show
            action, old, _ = self.runtime_changes[destination]
            plan = plan_copy(destination, parts)
            self.runtime_changes[destination] = (action, old, plan.text)
            return None
        try:
            plan = plan_copy(destination, parts)
        except (VendorConflict, OSError, UnicodeDecodeError) as error:
            return str(error)
        if plan.action is None:
            return None
        if self.dry_run:
            old = destination.read_text(encoding="utf-8") if plan.action == "update" else ""
            self.runtime_changes[destination] = (plan.action, old, plan.text)
            return None
        shown = _relative(destination)
        try:
            write_atomically(destination, plan.text.encode("utf-8"))
        except OSError as error:
            return f"cannot write the runtime copy {shown}: {error.strerror or error}"
        self.added_lines += plan.added_lines
        self._say(f"{shown}: {plan.action}d the vendored runtime ({_lines(vendored_lines(plan.text))}: {', '.join(plan.parts)})")
        return None

    def _show_runtime_changes(self) -> None:
        """A dry run shows the vendored copies after the user's own files, so that the diff reads as their
        change. The copy's whole text stays in the diff, even with ``-q``: the diff is a patch that must
        apply (``git apply``, ``patch -p1``) and give code that imports, and the copy is a file it creates."""
        for destination, (action, old, new) in self.runtime_changes.items():
            shown = _relative(destination)
            if self.arguments.diff:
                self._diff(shown, old, new, created=action == "create")
            self.added_lines += new.count("\n") - old.count("\n")
            self._say(f"{shown}: would {action} the vendored runtime ({_lines(vendored_lines(new))})")
        self.runtime_changes.clear()

    def _diff(self, shown: str, old: str, new: str, created: bool = False) -> None:
        self.progress.clear()
        before = "/dev/null" if created else f"a/{shown}"
        lines = difflib.unified_diff(old.splitlines(True), new.splitlines(True), before, f"b/{shown}")
        for line in lines:
            colour = "32" if line.startswith("+") and not line.startswith("+++") else "31" if line.startswith("-") and not line.startswith("---") else ""
            sys.stdout.write(paint(line, colour) if colour else line)
            if not line.endswith("\n"):
                sys.stdout.write("\n\\ No newline at end of file\n")

    def _summary(self) -> None:
        verb = "would fix" if self.dry_run else "fixed"
        fixes, changed = self.fixes, self.changed
        parts = [f"{verb} {fixes} container{'s' * (fixes != 1)} in {changed} file{'s' * (changed != 1)}"]
        for kind, lines in (("inline", self.inline_lines), ("vendored", self.added_lines)):
            if lines:
                parts.append(f"the {kind} runtime {'would add' if self.dry_run else 'adds'} {_lines(lines)}")
        if self.left:
            parts.append(f"{self.left} left to fix by hand")
        if self.errors:
            parts.append(f"{self.errors} file{'s' * (self.errors != 1)} with errors")
        self._say(f"{'; '.join(parts)}; {self.checked} file{'s' * (self.checked != 1)} checked")

    def _where(self, path: Path, line: int, col: int) -> str:
        return f"{path}:{line}:{col + 1}:"

    def _say(self, text: str) -> None:
        if not self.arguments.quiet:
            self.progress.clear()
            print(text)

    def _error(self, path: Path, line: int, message: str) -> None:
        self.errors += 1
        self.progress.clear()
        print(f"{path}:{line}: {message}", file=sys.stderr)


def _proof_lines(result: FileResult) -> list[str]:
    """Each fixed container's proof: a heading naming it as every other line of the run names a place
    (``path:line:col``, the path as given, absolute ones kept whole), then its owners and uses, indented."""
    lines: list[str] = []
    for fixed in result.fixed:
        lines.append(f"{result.path}:{fixed.line}:{fixed.col + 1}: {fixed.code} {fixed.name} is rewritten because:")
        lines.extend(f"  {step}" for step in fixed.proof or ("(the rule's own checks; no owner or use to list)",))
    return lines


def _lines(count: int) -> str:
    return f"{count} line{'s' * (count != 1)}"


def _relative(path: Path) -> str:
    """How a diff names a file: relative to here when inside, else its absolute path without the root
    (``a/tmp/x.py``, as git writes it)."""
    try:
        return str(path.absolute().relative_to(Path.cwd()))
    except ValueError:
        return str(path).lstrip("/")


def run() -> None:
    """The installed command's entry point (``python -m`` too)."""
    exit_after(main)


if __name__ == "__main__":
    run()
