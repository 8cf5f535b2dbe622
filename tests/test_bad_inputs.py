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


def _contents(root: Path, cases: dict[str, Case]) -> dict[str, Optional[bytes]]:
    return {name: None if name in ("dangling.py", "fifo.py") else (root / name).read_bytes() for name in cases}


def test_the_codemod_fixes_the_good_files_and_reports_each_bad_one_once(tree: tuple[Path, dict[str, Case]]) -> None:
    """With two worker processes: a file reached twice would be rewritten twice from the same bytes."""
    root, cases = tree
    done = run([*FIX, "--jobs", "2"], ".", cwd=root)
    assert done.returncode == 2
    expected_errors = sorted(f"{name}:{case.error}" for name, case in cases.items() if case.error)
    assert sorted(done.stderr.splitlines()) == expected_errors
    after = _contents(root, cases)
    for name, case in cases.items():
        if after[name] is not None:
            assert after[name] == (case.fixed if case.fixed is not None else case.data), name
    assert stat.S_IMODE((root / "read_only.py").stat().st_mode) == 0o444
    assert stat.S_ISFIFO((root / "fifo.py").lstat().st_mode)

    # through links: each target fixed once, every link still a link
    assert (root / "link_out.py").is_symlink() and (root / "link_in.py").is_symlink()
    assert (root.parent / "outside" / "target.py").read_text() == fixed(PINNING)
    assert (root / "good.py").read_text() == fixed(PINNING)
    assert done.stdout.count("link_in.py: WG001") + done.stdout.count("good.py: WG001") == 1
    assert sorted(path.name for path in root.rglob(".*")) == [], "no temporary file is left behind"

    again = run([*FIX, "--jobs", "1"], ".", cwd=root)
    assert again.stderr == done.stderr and "fixed 0 containers in 0 files" in again.stdout


def test_the_linter_reports_each_unreadable_file_once_and_checks_the_rest(tree: tuple[Path, dict[str, Case]]) -> None:
    root, cases = tree
    done = run(LINT, ".", cwd=root)
    assert done.returncode == 2
    assert sorted(done.stderr.splitlines()) == sorted(f"{name}:{case.error}" for name, case in cases.items() if case.lint_error)
    flagged = {line.split(":")[0] for line in done.stdout.splitlines()}
    assert {name for name, case in cases.items() if case.fixed is not None} <= flagged
    assert {"read_only.py", "too_deep_for_pyflakes.py", "too_deep_for_libcst.py", "link_out.py"} <= flagged


def test_flake8_reports_the_odd_but_valid_files(tree: tuple[Path, dict[str, Case]]) -> None:
    """flake8 as users run it. The files nested too deeply are left out: flake8 itself (parsing) or
    pyflakes (checking) fails on them, whatever other plugins do; the next test covers ours."""
    root, cases = tree
    odd = sorted(name for name, case in cases.items() if case.fixed is not None) + ["link_out.py"]
    done = run(["-m", "flake8", "--select", "WG", "--jobs", "1", *odd], cwd=root)
    assert done.returncode == 1 and done.stderr == ""
    assert {line.split(":")[0] for line in done.stdout.splitlines()} == set(odd)
    assert all(" WG001 " in line for line in done.stdout.splitlines())


def test_the_plugin_analyses_nesting_as_deep_as_python_parses() -> None:
    """Nesting about as deep as ``ast.parse`` accepts under pytest (pyflakes and libcst give up far earlier)."""
    text = PINNING + "total = " + "+".join(["names"] * 2_000) + "\n"
    found = list(WeakGlobalsChecker(ast.parse(text), text.splitlines(keepends=True)).run())
    assert [(line, message.split()[0]) for line, _, message, _ in found] == [(3, "WG001")]


def test_a_plugin_failure_is_a_wg000_finding_not_an_aborted_flake8_run(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*arguments: object) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(plugin, "analyze", broken)
    found = list(WeakGlobalsChecker(ast.parse(PINNING), PINNING.splitlines(keepends=True)).run())
    assert [(line, column, message) for line, column, message, _ in found] == [
        (1, 0, "WG000 internal error in flake8-weakglobals, please report it: KeyError('a bug')")
    ]


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


def test_a_10_mb_generated_file_is_fixed_beside_a_small_one(tmp_path: Path) -> None:
    helper = (
        "\n\ndef helper_{0}(module: nn.Module, x: int = {0}) -> int:\n    '''Generated helper {0}.'''\n"
        "    total = x * 2 + len(list(module.children()))\n    if total > {0}:\n        return total - 1\n    return total\n"
    )
    parts, size, index = [PINNING], len(PINNING), 0
    while size < 10_000_000:
        parts.append(helper.format(index))
        size, index = size + len(parts[-1]), index + 1
    big = "".join(parts)
    (tmp_path / "big.py").write_text(big)
    (tmp_path / "small.py").write_text(PINNING)
    done = run([*FIX, "--jobs", "1"], ".", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "big.py").read_text() == fixed(big)
    assert (tmp_path / "small.py").read_text() == fixed(PINNING)
