"""Odd and bad files, through the command lines as users run them, all in one tree.

Odd but valid files (encodings, line endings, tabs, ``match``, a directory named ``x.py``, symbolic
links) are fixed with every other byte kept. Bad files (syntax errors, NUL bytes, undecodable bytes,
nesting deeper than Python's recursion limit, newer syntax, FIFOs, read-only files, dangling links,
files deleted or edited during the run) each get exactly one ``path:line: reason`` line on stderr and
are left byte for byte as they were; the good files in the same run are still fixed; the exit code is 2.
"""
from __future__ import annotations

import ast
import os
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

from conftest import PINNING, fixed
from flake8_weakglobals.frontends import flake8_plugin as plugin
from flake8_weakglobals.frontends.flake8_plugin import WeakGlobalsChecker
from test_flake8_plugin import FAIL_HERE, WG000, failing_analysis

PYTHON = "{}.{}".format(*sys.version_info)


def run(tool: list[str], *arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, *tool, *arguments], capture_output=True, text=True, cwd=cwd, env=environment, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    return done


FIX = ["-m", "fixes.apply", "--runtime", "import"]
LINT = ["-m", "flake8_weakglobals.frontends.command"]


@dataclass(frozen=True)
class Case:
    data: bytes
    fixed: Optional[bytes] = None  # the file's bytes after the run; None: unchanged
    error: Optional[str] = None  # its one stderr line from the codemod, after "path:"
    lint_error: bool = False  # the linter, which never writes, reports the same line


def _mixed_endings() -> tuple[bytes, bytes]:
    lines = PINNING.splitlines(keepends=True)
    text = "".join(line.replace("\n", "\r\n") if index % 2 == 0 else line for index, line in enumerate(lines))
    return text.encode(), fixed(text, "\r\n").encode()


def _cases() -> dict[str, Case]:
    latin = "# -*- coding: latin-1 -*-\n# caf\xe9 cr\xe8me\n" + PINNING
    bom = "# \u00e9t\u00e9\n" + PINNING
    crlf = PINNING.replace("\n", "\r\n")
    cr = PINNING.replace("\n", "\r")
    tabs = PINNING.replace("    ", "\t")
    match = PINNING + "\n\ndef g(value):\n    match value:\n        case {'names': names}:\n            names[0] = 1\n        case [nn.Module() as m, *_]:\n            return m\n"
    newer = PINNING + "type Alias = dict[nn.Module, str]\n\n\ndef first[T](items: list[T]) -> T:\n    return items[0]\n"
    newer_case = (
        Case(newer.encode(), fixed(newer).encode())
        if sys.version_info >= (3, 12)
        else Case(newer.encode(), error=f"8: cannot parse with Python {PYTHON}: invalid syntax", lint_error=True)
    )
    warning = PINNING + 'assert (len(names), 1)\nsame = 1 is 1\npattern = "\\d"\n'  # compiling these warns
    mixed, mixed_fixed = _mixed_endings()
    return {
        # odd but valid: fixed, every other byte kept
        "latin1_cookie.py": Case(latin.encode("latin-1"), fixed(latin).encode("latin-1")),
        "utf8_bom.py": Case(b"\xef\xbb\xbf" + bom.encode(), b"\xef\xbb\xbf" + fixed(bom).encode()),
        "crlf.py": Case(crlf.encode(), fixed(crlf, "\r\n").encode()),
        "cr_only.py": Case(cr.encode(), fixed(cr, "\r").encode()),  # classic Mac OS
        "mixed_endings.py": Case(mixed, mixed_fixed),
        "tabs.py": Case(tabs.encode(), fixed(tabs).encode()),
        "match_statement.py": Case(match.encode(), fixed(match).encode()),
        "x.py/inside_a_directory_named_x_py.py": Case(PINNING.encode(), fixed(PINNING).encode()),
        "empty.py": Case(b""),
        "syntax_warnings.py": Case(warning.encode(), fixed(warning).encode()),
        "python312.py": newer_case,
        # bad: one line each, untouched
        "syntax_error.py": Case(b"import torch\n\ndef broken(:\n", error=f"3: cannot parse with Python {PYTHON}: invalid syntax", lint_error=True),
        "nul_byte.py": Case(b"import torch\nx = 1\n\0\n", error="3: cannot parse: the file contains a NUL byte", lint_error=True),
        "undecodable.py": Case(
            b'import torch\nx = "\xff"\n',
            error="2: cannot decode as utf-8: byte 0xff at column 6 (invalid start byte); add a coding cookie or re-encode the file",
            lint_error=True,
        ),
        "unknown_cookie.py": Case(b"# -*- coding: klingon -*-\nimport torch\n", error="1: cannot decode: unknown encoding: klingon", lint_error=True),
        "inconsistent_tabs.py": Case(
            b"import torch\nif x:\n\tif y:\n        pass\n",
            error=f"4: cannot parse with Python {PYTHON}: inconsistent use of tabs and spaces in indentation",
            lint_error=True,
        ),
        "too_deep_to_parse.py": Case(
            ("import torch\nx = " + "+".join(["1"] * 100_000) + "\n").encode(),
            error="1: cannot parse: nested too deeply for Python's parser",
            lint_error=True,
        ),
        "too_deep_for_pyflakes.py": Case(
            (PINNING + "total = " + "+".join(["1"] * 1_500) + "\n").encode(),
            error="3: left unchanged: the file is nested too deeply for pyflakes to check the rewrite",
        ),
        "too_deep_for_libcst.py": Case(
            PINNING.replace("names = {}", "names = {0: " + "+".join(["1"] * 600) + "}").encode(),
            error="3: left unchanged: line 3: the statement is nested too deeply for libcst to rewrite",
        ),
        "read_only.py": Case(PINNING.encode(), error="3: left unchanged: the file is read-only"),
    }


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, dict[str, Case]]:
    root = tmp_path / "tree"
    cases = _cases()
    for name, case in cases.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(case.data)
    (root / "read_only.py").chmod(0o444)
    # Symbolic links: one to a file outside the tree (fixed through the link, which stays a link), one to
    # a file inside it (the file is fixed once), one dangling.
    outside = tmp_path / "outside" / "target.py"
    outside.parent.mkdir()
    outside.write_text(PINNING)
    (root / "link_out.py").symlink_to(outside)
    (root / "good.py").write_text(PINNING)
    (root / "link_in.py").symlink_to(root / "good.py")
    (root / "dangling.py").symlink_to(root / "nowhere.py")
    cases["dangling.py"] = Case(b"", error="1: cannot read: No such file or directory (a symbolic link to a missing file)", lint_error=True)
    os.mkfifo(root / "fifo.py")  # reading it would block forever
    cases["fifo.py"] = Case(b"", error="1: not a regular file", lint_error=True)
    return root, cases


UNREADABLE = ("dangling.py", "fifo.py")  # nothing to read: checked by what they are, not by their bytes
#: Files of the tree beside the cases that have a WG001 to fix: the link out, and ``good.py`` (which
#: ``link_in.py`` links to: it is reached once).
LINKED = ("good.py", "link_out.py")


def _fixed_names(cases: dict[str, Case]) -> list[str]:
    """The files a run fixes (the linter flags them too): the odd but valid cases and the linked files."""
    return sorted([name for name, case in cases.items() if case.fixed is not None] + list(LINKED))


def test_the_codemod_fixes_the_good_files_and_reports_each_bad_one_once(tree: tuple[Path, dict[str, Case]]) -> None:
    """With two worker processes: a file reached twice would be rewritten twice from the same bytes."""
    root, cases = tree
    done = run([*FIX, "--jobs", "2"], ".", cwd=root)
    assert done.returncode == 2
    expected_errors = sorted(f"{name}:{case.error}" for name, case in cases.items() if case.error)
    assert sorted(done.stderr.splitlines()) == expected_errors
    readable = {name: case for name, case in cases.items() if name not in UNREADABLE}
    assert len(readable) == len(cases) - len(UNREADABLE)
    assert {name: (root / name).read_bytes() for name in readable} == {
        name: case.fixed if case.fixed is not None else case.data for name, case in readable.items()
    }
    assert stat.S_IMODE((root / "read_only.py").stat().st_mode) == 0o444
    assert stat.S_ISFIFO((root / "fifo.py").lstat().st_mode)
    assert os.readlink(root / "dangling.py") == str(root / "nowhere.py") and not (root / "nowhere.py").exists()

    # through links: each target fixed once, every link still a link
    assert (root / "link_out.py").is_symlink() and (root / "link_in.py").is_symlink()
    assert (root.parent / "outside" / "target.py").read_text() == fixed(PINNING)
    assert (root / "good.py").read_text() == fixed(PINNING)
    *lines, summary = [line for line in done.stdout.splitlines() if not line.startswith(" ")]  # a fix's proof is indented
    names = _fixed_names(cases)
    assert sorted(lines) == [f"{name}: WG001 names" for name in names], "each file fixed once, link_in.py through good.py"
    assert summary == (f"fixed {len(names)} containers in {len(names)} files; {len(expected_errors)} files with errors; "
                       f"{len(cases) + len(LINKED)} files checked")
    assert sorted(path.name for path in root.rglob(".*")) == [], "no temporary file is left behind"

    again = run([*FIX, "--jobs", "1"], ".", cwd=root)
    assert (again.returncode, again.stderr) == (2, done.stderr)
    assert again.stdout.startswith("fixed 0 containers in 0 files;"), again.stdout


def test_vendoring_beside_a_fifo_never_reads_it(tree: tuple[Path, dict[str, Case]]) -> None:
    """``--runtime vendor`` reads the project's files to find ``runpy.run_path`` callers (a copy they could
    not import): the FIFO among them is skipped, not opened (which would block until ``run``'s timeout)."""
    root, cases = tree
    done = run(["-m", "fixes.apply", "--runtime", "vendor", "--jobs", "1"], "good.py", "fifo.py", cwd=root)
    assert done.stderr.splitlines() == ["fifo.py:1: not a regular file"]
    assert done.returncode == 2
    assert done.stdout.splitlines()[-1].startswith("fixed 1 container in 1 file; the vendored runtime adds ")
    assert (root / "good.py").read_text() != PINNING and (root / "_weakglobals_runtime.py").is_file()
    assert stat.S_ISFIFO((root / "fifo.py").lstat().st_mode)


def test_the_linter_reports_each_unreadable_file_once_and_checks_the_rest(tree: tuple[Path, dict[str, Case]]) -> None:
    root, cases = tree
    done = run(LINT, ".", cwd=root)
    assert done.returncode == 2
    assert sorted(done.stderr.splitlines()) == sorted(f"{name}:{case.error}" for name, case in cases.items() if case.lint_error)
    flagged = sorted((line.split(":")[0], line.split(" ")[1]) for line in done.stdout.splitlines())
    left_as_is = ["read_only.py", "too_deep_for_libcst.py", "too_deep_for_pyflakes.py"]  # the codemod's errors, not the linter's
    assert flagged == sorted((name, "WG001") for name in _fixed_names(cases) + left_as_is)


def test_flake8_reports_the_odd_but_valid_files(tree: tuple[Path, dict[str, Case]]) -> None:
    """flake8 as users run it. The files nested too deeply are left out: flake8 itself (parsing) or
    pyflakes (checking) fails on them, whatever other plugins do; the next test covers ours."""
    root, cases = tree
    odd = sorted(name for name, case in cases.items() if case.fixed is not None) + ["link_out.py"]
    done = run(["-m", "flake8", "--select", "WG", "--jobs", "1", *odd], cwd=root)
    assert done.returncode == 1 and done.stderr == ""
    at = {name: _line_of_names(cases[name].data if name in cases else PINNING.encode()) for name in odd}
    assert sorted(line.split(" ")[:2] for line in done.stdout.splitlines()) == sorted([f"{name}:{at[name]}:1:", "WG001"] for name in odd)


def _line_of_names(data: bytes) -> int:
    """The line ``names = {}`` is on, counted as Python counts lines (``\r`` alone ends one too)."""
    text = data.decode("latin-1")  # every case's ``names = {}`` line is ASCII, whatever its encoding
    return next(number for number, line in enumerate(text.splitlines(), start=1) if line.startswith("names = {}"))


def test_the_plugin_analyses_nesting_as_deep_as_python_parses() -> None:
    """Nesting about as deep as ``ast.parse`` accepts under pytest (pyflakes and libcst give up far earlier)."""
    text = PINNING + "total = " + "+".join(["names"] * 2_000) + "\n"
    found = list(WeakGlobalsChecker(ast.parse(text), text.splitlines(keepends=True)).run())
    assert [(line, message.split()[0]) for line, _, message, _ in found] == [(3, "WG001")]


def test_a_plugin_failure_is_a_wg000_finding_not_an_aborted_flake8_run(tmp_path: Path) -> None:
    """flake8 as users run it, two jobs, over a file on which the installed plugin's analysis raises (made to:
    ``failing_analysis``) and a good one: the failure is one WG000 finding, the good file is still checked."""
    (tmp_path / "bad.py").write_text(PINNING + FAIL_HERE + "\n")
    (tmp_path / "good.py").write_text(PINNING)
    done = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "WG", "--jobs", "2", "bad.py", "good.py"],
        capture_output=True, text=True, cwd=tmp_path, env=failing_analysis(tmp_path / "site"), timeout=120,
    )
    assert (done.returncode, done.stderr) == (1, "")
    assert sorted(done.stdout.splitlines()) == [
        f"bad.py:1:1: {WG000}",
        "good.py:3:1: WG001 module-level dict `names` is keyed by nn.Module objects (parameter `module: nn.Module` at line 6)",
    ]


def test_the_checker_turns_an_analysis_failure_into_a_wg000_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process: the checker class with its analysis replaced by one that raises."""

    def broken(*arguments: object) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(plugin, "analyze", broken)
    found = list(WeakGlobalsChecker(ast.parse(PINNING), PINNING.splitlines(keepends=True)).run())
    assert [(line, column, message) for line, column, message, _ in found] == [(1, 0, WG000)]


# --- files that change under the run ----------------------------------------------------------------------

# The real command line, with its per-file step wrapped to delete or edit files at exact moments: after
# ``a.py`` is read, ``gone.py`` (not yet read) is deleted; ``deleted.py`` and ``edited.py`` are changed
# right after being read, before the run writes them.
_MEANWHILE = """
import os, sys
from pathlib import Path
import fixes.apply as apply

read_and_fix = apply.process

def process(path, settings):
    result = read_and_fix(path, settings)
    if path.name == "a.py":
        os.unlink("gone.py")
    if path.name == "deleted.py":
        os.unlink(path)
    if path.name == "edited.py":
        path.write_text(path.read_text() + "# the user's edit\\n")
    return result

apply.process = process
raise SystemExit(apply.main(sys.argv[1:]))
"""


def test_files_deleted_or_edited_during_the_run_are_never_resurrected_or_overwritten(tmp_path: Path) -> None:
    for name in ("a.py", "deleted.py", "edited.py", "gone.py", "z.py"):
        (tmp_path / name).write_text(PINNING)
    done = run(["-c", _MEANWHILE, "--runtime", "import", "--jobs", "1", "."], cwd=tmp_path)
    assert done.returncode == 2
    assert sorted(done.stderr.splitlines()) == [
        "deleted.py:3: left unchanged: the file was deleted during the run",
        "edited.py:3: left unchanged: the file changed on disk during the run",
        "gone.py:1: cannot read: No such file or directory",
    ]
    assert not (tmp_path / "deleted.py").exists() and not (tmp_path / "gone.py").exists()
    assert (tmp_path / "edited.py").read_text() == PINNING + "# the user's edit\n"
    assert (tmp_path / "a.py").read_text() == (tmp_path / "z.py").read_text() == fixed(PINNING)


# --- size ----------------------------------------------------------------------------------------------------


def test_a_large_generated_file_is_fixed_beside_a_small_one(tmp_path: Path) -> None:
    """3 MB, 110,000 lines: nothing in the codemod depends on a file's size but its time, which
    benchmarks/bench_big_file.py measures on 10 MB (a 10 MB file here cost 25 s of the suite)."""
    helper = (
        "\n\ndef helper_{0}(module: nn.Module, x: int = {0}) -> int:\n    '''Generated helper {0}.'''\n"
        "    total = x * 2 + len(list(module.children()))\n    if total > {0}:\n        return total - 1\n    return total\n"
    )
    parts, size, index = [PINNING], len(PINNING), 0
    while size < 3_000_000:
        parts.append(helper.format(index))
        size, index = size + len(parts[-1]), index + 1
    big = "".join(parts)
    (tmp_path / "big.py").write_text(big)
    (tmp_path / "small.py").write_text(PINNING)
    done = run([*FIX, "--jobs", "1"], ".", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "big.py").read_text() == fixed(big)
    assert (tmp_path / "small.py").read_text() == fixed(PINNING)
