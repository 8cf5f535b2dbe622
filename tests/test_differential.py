"""Differential tests: the codemod must never change what a program does.

Every program in ``tests/differential/`` is a small realistic module (or a directory with a ``main.py``
and sibling modules) that defines a pinning container, fills it with real torch objects and has a
``main()`` that exercises it and prints a deterministic transcript. Its header declares the outcome:

- ``# expect: fixed``: the codemod must rewrite the file, leave none of its findings "as is", and the
  rewrite must print the same transcript (convention below) and bind each runtime name once;
- ``# expect: refused: SUBSTRING [| SUBSTRING ...]``: the codemod must leave the file unchanged and print
  ``path:line:col: WG00x NAME left as is: REASON`` with one of the substrings in the reason (alternatives
  keep the outcome strict and the wording free).

Nothing else passes: a refusal of a program expected fixed fails, so does a rewrite of a program expected
refused. An optional ``# codemod: ARGS`` line replaces the default ``--runtime import`` (programs with the
same arguments share one run of the codemod).

How it runs (once per session, shared by xdist workers through a lock): every program is copied twice into
a temporary directory; ``python -m fixes.apply ARGS DIR`` runs over one copy as a subprocess, as a user
runs it; then the untouched copies run in one fresh interpreter and the rewritten copies in another
(``differential_runner.py``: each program imported as its own module, ``main()`` called with stdout
captured, an escaping exception recorded as ``EXCEPTION: TypeName: message``). Each program is then one
test.

The comparison (``differential_harness.differences``): addresses are masked; every line must be equal,
in order, except lines ``[gc] LABEL: VALUE`` in a rewritten program, where VALUE (an int, list or tuple
literal) must show strictly less on the rewritten side (a smaller count, a proper subsequence of the
entries): entries whose key was collected are gone, which is the point of the fix, and nothing else may
change. Programs print such a line only where the garbage collector decides the answer, and print every
other observation (live entries, values, caught exceptions, the caller's model) on ordinary lines. A
program whose original itself ends in ``EXCEPTION`` is a broken fixture, and fails as such.

The programs' names say what they probe: ``control_`` (shapes that always worked), ``k1_`` keys the
original accepted, ``e2_`` containers that escape their direct uses, ``r3_`` the dict and set API,
``n4_`` names, ``v5_`` values that must not (``v5_blocks_``: must) block a fix, ``t6_`` torch.compile,
``f7_`` formatting (also checked on the rewritten text, below), ``s8_`` safe fixes that were once refused
(a use the check misread); and by the classes of the fix-proof work, each failing before it: ``p1_`` an
owner that must be shown, ``p2_`` uses by every route, ``c3_`` a replacement observable as another type,
``c5_`` safe fixes made.

Run: ``python -m pytest tests/test_differential.py -q`` (about 15 s on 2 cores: the codemod twice, two
interpreters at once; a program is then one test, ``-k NAME`` picks it). A failure shows the codemod's
lines on the program, the rewrite as a diff, and the two transcripts as a diff.
"""
from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import pytest

from differential_harness import CodemodRun, apply_codemod, differences, run_both, runtime_imports, transcript_diff

PROGRAMS_DIR = Path(__file__).parent / "differential"
EXPECT = re.compile(r"^# expect: (?:(?P<fixed>fixed)|refused: (?P<reasons>.+))$", re.MULTILINE)
CODEMOD = re.compile(r"^# codemod: (?P<arguments>.+)$", re.MULTILINE)
#: A behaviour change we know of and have not fixed yet: the test is a strict xfail, so fixing it shows.
KNOWN_GAP = re.compile(r"^# known gap: (?P<reason>.+)$", re.MULTILINE)
DEFAULT_ARGUMENTS = ("--runtime", "import")
#: Where the one-file programs sit in a copy: a directory of their own, beside each directory program, so
#: that what a directory program does to every module it finds (``vars(sys.modules[name])``) is no
#: importer of theirs, as it would be of the one-file programs in its own directory.
SINGLES = "single_files"


@dataclass(frozen=True)
class Program:
    name: str
    source: Path  # a file, or a directory holding main.py
    fixed: bool
    reasons: tuple[str, ...]
    arguments: tuple[str, ...]
    known_gap: str = ""

    @property
    def main(self) -> str:
        """The program's file, relative to its copy's root."""
        return f"{self.name}/main.py" if self.source.is_dir() else f"{SINGLES}/{self.source.name}"


def discover() -> list[Program]:
    programs = []
    for source in sorted(PROGRAMS_DIR.iterdir()):
        if source.name.startswith(("_", ".")) or not (source.suffix == ".py" or (source / "main.py").is_file()):
            continue
        main = source / "main.py" if source.is_dir() else source
        text = main.read_text(encoding="utf-8")
        expectations = list(EXPECT.finditer(text))
        assert len(expectations) == 1, f"{main}: needs exactly one `# expect: fixed` or `# expect: refused: REASON` line"
        expect = expectations[0]
        reasons = tuple(part.strip() for part in (expect["reasons"] or "").split("|") if part.strip())
        codemod = CODEMOD.search(text)
        arguments = tuple(codemod["arguments"].split()) if codemod else DEFAULT_ARGUMENTS
        gap = KNOWN_GAP.search(text)
        name = source.stem if source.is_file() else source.name
        programs.append(Program(name, source, bool(expect["fixed"]), reasons, arguments, gap["reason"] if gap else ""))
    return programs


PROGRAMS = discover()


@dataclass
class Outcome:
    """Everything one session learned about one program."""

    program: Program
    original_text: str
    rewritten_text: str
    reasons: list[str]
    errors: list[str]
    codemod_output: str
    original: str  # transcripts
    rewritten: str


def _copy(program: Program, root: Path) -> Path:
    if program.source.is_dir():
        shutil.copytree(program.source, root / program.name, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        (root / SINGLES).mkdir(exist_ok=True)
        shutil.copy2(program.source, root / program.main)
    return root / program.main


def _run_all(base: Path) -> dict[str, dict]:
    groups: dict[tuple[str, ...], list[Program]] = {}
    for program in PROGRAMS:
        groups.setdefault(program.arguments, []).append(program)
    originals, rewrites, runs = {}, {}, {}
    for number, (arguments, members) in enumerate(sorted(groups.items())):
        original_root, rewrite_root = base / f"original{number}", base / f"rewritten{number}"
        original_root.mkdir()
        rewrite_root.mkdir()
        for program in members:
            originals[program.name] = _copy(program, original_root)
            rewrites[program.name] = _copy(program, rewrite_root)
        run = apply_codemod(rewrite_root, arguments)
        runs.update({program.name: run for program in members})
    names = [program.name for program in PROGRAMS]
    before, after = run_both([originals[name] for name in names], [rewrites[name] for name in names])
    results = {}
    for program in PROGRAMS:
        name, run = program.name, runs[program.name]
        results[name] = dict(
            original_text=_text(program, originals[name]),
            rewritten_text=_text(program, rewrites[name]),
            reasons=[reason for path in _files(program, rewrites[name]) for reason in run.reasons(path)],
            errors=[error for path in _files(program, rewrites[name]) for error in run.errors_of(path)],
            codemod_output=_codemod_output(program, run, rewrites[name]),
            original=before[str(originals[name])],
            rewritten=after[str(rewrites[name])],
        )
    return results


def _text(program: Program, main: Path) -> str:
    """What the codemod may rewrite: the file, or every module of a directory program, each under its name
    (the container may live beside ``main.py``, as a cached function called from ``main.py`` does)."""
    if not program.source.is_dir():
        return _read(main)
    return "".join(f"# --- {path.relative_to(main.parent)}\n{_read(path)}" for path in _files(program, main))


def _read(path: Path) -> str:
    """A module's text for comparison, whatever its encoding (a program may have a latin-1 module)."""
    return path.read_bytes().decode("utf-8", "surrogateescape")


def _files(program: Program, main: Path) -> list[Path]:
    """The program's files: a directory program's every module (a container may live beside ``main.py``)."""
    return sorted(main.parent.rglob("*.py")) if program.source.is_dir() else [main]


def _codemod_output(program: Program, run: CodemodRun, path: Path) -> str:
    """The codemod's lines about this program (its run covered every program with the same arguments)."""
    mine = str(path.parent if program.source.is_dir() else path)
    lines = [line for line in (run.stdout + run.stderr).splitlines() if line.startswith(mine)]
    return "\n".join([f"$ python -m fixes.apply {' '.join(program.arguments)} DIR  (exit {run.returncode}; its lines on this program:)", *lines])


@pytest.fixture(scope="session")
def differential(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    """The codemod and both interpreters, run once per session even under xdist (the first worker runs
    them, the others read its results)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        results = _run_all(tmp_path_factory.mktemp("differential"))
    else:
        from filelock import FileLock

        shared = tmp_path_factory.getbasetemp().parent
        cache = shared / "differential.json"
        with FileLock(str(cache) + ".lock"):
            if cache.is_file():
                results = json.loads(cache.read_text(encoding="utf-8"))
            else:
                results = _run_all(tmp_path_factory.mktemp("differential"))
                cache.write_text(json.dumps(results), encoding="utf-8")
    by_name = {program.name: program for program in PROGRAMS}
    return {name: Outcome(by_name[name], **fields) for name, fields in results.items()}


def _report(outcome: Outcome) -> str:
    return (
        f"\n--- codemod output\n{outcome.codemod_output}"
        f"\n--- rewrite\n{_text_diff(outcome.original_text, outcome.rewritten_text) or '(unchanged)'}"
        f"\n--- transcripts (original -> rewritten)\n{transcript_diff(outcome.original, outcome.rewritten) or '(equal)'}"
    )


def _text_diff(old: str, new: str) -> str:
    import difflib

    return "\n".join(difflib.unified_diff(old.splitlines(), new.splitlines(), "before", "after", lineterm=""))


@pytest.mark.parametrize(
    "program",
    [pytest.param(p, marks=pytest.mark.xfail(strict=True, reason=p.known_gap)) if p.known_gap else p for p in PROGRAMS],
    ids=[program.name for program in PROGRAMS],
)
def test_the_codemod_keeps_what_the_program_does(program: Program, differential: dict[str, Outcome]) -> None:
    outcome = differential[program.name]
    assert "EXCEPTION:" not in outcome.original, f"broken fixture: the original program raised\n{outcome.original}"
    assert outcome.original.strip(), "broken fixture: the program printed nothing"
    assert not outcome.errors, f"the codemod reported errors on this file: {outcome.errors}{_report(outcome)}"
    changed = outcome.original_text != outcome.rewritten_text
    if program.fixed:
        # a workspace (WG007) is never fixed: one left beside the fixed containers refuses nothing
        refusals = [reason for reason in outcome.reasons if not reason.startswith("WG007: ")]
        assert changed and not refusals, (
            f"expected a fix, but the codemod {'left findings as is' if outcome.reasons else 'left the file unchanged'}: "
            f"{outcome.reasons}{_report(outcome)}"
        )
        twice = {name: count for name, count in runtime_imports(outcome.rewritten_text).items() if count > 1}
        assert not twice, f"the rewrite imports {sorted(twice)} more than once{_report(outcome)}"
    else:
        assert not changed, f"expected a refusal ({' | '.join(program.reasons)}), but the codemod rewrote the file{_report(outcome)}"
        assert any(wanted in reason for reason in outcome.reasons for wanted in program.reasons), (
            f"expected a refusal whose reason contains one of {list(program.reasons)}, got {outcome.reasons or 'no refusal'}"
            f"{_report(outcome)}"
        )
    problems = differences(outcome.original, outcome.rewritten, rewrite_expected=changed)
    assert not problems, "the rewrite changed what the program prints:\n" + "\n".join(problems) + _report(outcome)


# --- formatting: checked on the rewritten text, not by running ---------------------------------------------------


def _multiline_comment_survives(text: str) -> Optional[str]:
    if "# one list of handles per module, so each can be removed on its own" not in text:
        return "the comment inside the multi-line defaultdict(...) call was lost"
    return None


def _no_stale_type_comment(text: str) -> Optional[str]:
    import io
    import tokenize

    comments = [token.string for token in tokenize.generate_tokens(io.StringIO(text).readline) if token.type == tokenize.COMMENT]
    stale = [comment for comment in comments if re.fullmatch(r"#\s*type:\s*set\s*", comment)]
    if stale:
        return f"a `# type: set` comment is left on the container, which is no longer a set: {stale}"
    return None


TEXT_CHECKS: dict[str, Callable[[str], Optional[str]]] = {
    "f7_multiline_call_comment": _multiline_comment_survives,
    "f7_type_comment": _no_stale_type_comment,
}


@pytest.mark.parametrize("name", sorted(TEXT_CHECKS))
def test_the_rewritten_text_keeps_comments_and_drops_stale_ones(name: str, differential: dict[str, Outcome]) -> None:
    outcome = differential[name]
    assert outcome.original_text != outcome.rewritten_text, f"{name} was not rewritten{_report(outcome)}"
    problem = TEXT_CHECKS[name](outcome.rewritten_text)
    assert problem is None, f"{problem}\n{_text_diff(outcome.original_text, outcome.rewritten_text)}"
