"""What the differential tests share: run the codemod over a copy of some programs as a user would, run the
originals and the rewrites in one fresh interpreter each (``differential_runner.py``), and compare.

The comparison convention (also in ``test_differential.py``'s docstring):

- addresses (``0x7f...``) are masked on both sides;
- a program that the codemod left unchanged must print exactly the same lines;
- a rewritten program must print the same lines, in the same order, except lines of the form
  ``[gc] LABEL: VALUE``, where VALUE is a Python literal that depends on what the garbage collector freed.
  There the label must match and the rewritten side must show strictly less than the original side: an
  int must be smaller (and not negative), a list or tuple must be a proper subsequence of the original's
  (entries dropped, none added, none reordered). That is the one intended change: entries whose key was
  collected are gone. Programs print every other observation (live entries, values, exceptions, the
  caller's model) on ordinary lines, which must be equal.
"""
from __future__ import annotations

import ast
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from flake8_weakglobals import runtime

HERE = Path(__file__).parent
REPO = HERE.parent
RUNNER = HERE / "differential_runner.py"
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
GC_LINE = re.compile(r"^\[gc\] (?P<label>[^:]*): (?P<value>.*)$")
LEFT = re.compile(r"^(?P<path>.*?):\d+:\d+: (?P<code>WG\d{3}) (?P<name>\S+) left as is: (?P<reason>.*)$")
ERROR = re.compile(r"^(?P<path>.*?):\d+: (?P<message>.*)$")
RUNTIME_NAMES = frozenset(runtime.__all__)  # every name a rewrite may import, WeakIdList and the weak caches too


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env.update(NO_COLOR="1", PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    return env


@dataclass
class CodemodRun:
    """What one run of ``python -m fixes.apply`` said, by file."""

    returncode: int
    stdout: str
    stderr: str
    #: resolved path -> its "left as is" lines, each ``CODE: reason``
    left: dict[str, list[str]] = field(default_factory=dict)
    errors: dict[str, list[str]] = field(default_factory=dict)  # resolved path -> its error messages

    def reasons(self, path: Path) -> list[str]:
        return self.left.get(str(path.resolve()), [])

    def errors_of(self, path: Path) -> list[str]:
        return self.errors.get(str(path.resolve()), [])


def apply_codemod(directory: Path, arguments: Sequence[str], timeout: float = 300) -> CodemodRun:
    """``python -m fixes.apply ARGUMENTS DIRECTORY``, as a subprocess, as a user runs it."""
    process = subprocess.run(
        [sys.executable, "-m", "fixes.apply", *arguments, str(directory)],
        capture_output=True, text=True, env=environment(), cwd=directory, timeout=timeout,
    )
    run = CodemodRun(process.returncode, process.stdout, process.stderr)
    for line in process.stdout.splitlines():
        match = LEFT.match(line)
        if match:
            run.left.setdefault(str((directory / match["path"]).resolve()), []).append(f"{match['code']}: {match['reason']}")
    for line in process.stderr.splitlines():
        match = ERROR.match(line)
        if match:
            run.errors.setdefault(str((directory / match["path"]).resolve()), []).append(match["message"])
    return run


def start_programs(paths: Sequence[Path], out: Path) -> subprocess.Popen:
    """Start one interpreter that runs every program in ``paths`` and writes their transcripts to ``out``."""
    return subprocess.Popen(
        [sys.executable, str(RUNNER), str(out), *map(str, paths)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment(),
    )


def finish_programs(process: subprocess.Popen, out: Path, timeout: float = 600) -> dict[str, str]:
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise AssertionError(f"the program runner took more than {timeout} s")
    if process.returncode != 0 or not out.exists():
        raise AssertionError(f"the program runner failed (exit {process.returncode}):\n{stdout}\n{stderr}")
    return json.loads(out.read_text(encoding="utf-8"))


def run_both(originals: Sequence[Path], rewritten: Sequence[Path]) -> tuple[dict[str, str], dict[str, str]]:
    """Transcripts of the originals and of the rewrites, each side in one fresh interpreter, both at once."""
    with tempfile.TemporaryDirectory() as scratch:
        before, after = Path(scratch, "original.json"), Path(scratch, "rewritten.json")
        first = start_programs(originals, before)
        second = start_programs(rewritten, after)
        return finish_programs(first, before), finish_programs(second, after)


def mask(transcript: str) -> str:
    return ADDRESS.sub("0x?", transcript)


def _proper_subsequence(shorter: Sequence[object], longer: Sequence[object]) -> bool:
    if len(shorter) >= len(longer):
        return False
    remaining = iter(longer)
    return all(any(item == candidate for candidate in remaining) for item in shorter)


def _gc_problem(original: str, rewritten: str) -> Optional[str]:
    """Why a ``[gc]`` line of the rewrite does not show strictly fewer entries than the original's, or None."""
    try:
        before, after = ast.literal_eval(original), ast.literal_eval(rewritten)
    except (ValueError, SyntaxError):
        return "a [gc] value must be a Python literal (an int, a list or a tuple)"
    if type(before) is int and type(after) is int:
        return None if 0 <= after < before else "the rewrite must show fewer entries than the original"
    if isinstance(before, (list, tuple)) and isinstance(after, (list, tuple)):
        if _proper_subsequence(list(after), list(before)):
            return None
        return "the rewrite must show a proper subsequence of the original's entries (some dropped, none added)"
    return "a [gc] value must be an int, a list or a tuple on both sides"


def differences(original: str, rewritten: str, rewrite_expected: bool) -> list[str]:
    """Every way the two transcripts differ beyond the convention above; empty when they agree."""
    before, after = mask(original).splitlines(), mask(rewritten).splitlines()
    if not rewrite_expected:
        return [] if before == after else ["the program was left unchanged, so it must print exactly the same"]
    problems = []
    if len(before) != len(after):
        problems.append(f"the original printed {len(before)} lines, the rewrite {len(after)}")
    for number, (old, new) in enumerate(zip(before, after), start=1):
        old_gc, new_gc = GC_LINE.match(old), GC_LINE.match(new)
        if old_gc and new_gc and old_gc["label"] == new_gc["label"]:
            problem = _gc_problem(old_gc["value"], new_gc["value"])
            if problem:
                problems.append(f"line {number}: {problem}: {old!r} -> {new!r}")
        elif old != new:
            problems.append(f"line {number}: {old!r} -> {new!r}")
    return problems


def transcript_diff(original: str, rewritten: str) -> str:
    lines = difflib.unified_diff(mask(original).splitlines(), mask(rewritten).splitlines(), "original", "rewritten", lineterm="")
    return "\n".join(lines)


def runtime_imports(text: str) -> dict[str, int]:
    """How many import statements bind each runtime name (a rewrite must bind each at most once)."""
    counts: dict[str, int] = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name in RUNTIME_NAMES:  # bound under a private name (``WeakIdMap as _WeakIdMap``)
                    counts[alias.name] = counts.get(alias.name, 0) + 1
    return counts
