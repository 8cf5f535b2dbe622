"""Excludes match as flake8's and ruff's do, however the paths are spelled and wherever the command runs.

A pattern without ``/`` matches a name; one with ``/`` a path, relative to the configuration file's directory
(from ``pyproject.toml``) or to the working directory (on the command line); ``./`` prefixes, trailing
slashes, comma-separated lists and ``extend-exclude`` work; ``exclude`` replaces the default list.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PINNING

LINT = [sys.executable, "-m", "flake8_weakglobals.frontends.command"]
FILES = ("a.py", "b.py", "generated/g.py", "pkg/keep.py", "pkg/train_stats.py", "build/lib/copy.py")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for name in FILES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(PINNING)
    (root / "pyproject.toml").write_text('[tool.weakglobals]\nextend-exclude = ["generated/*"]\n')
    return root


def reported(root: Path, *arguments: str, cwd: Path, command: list[str] = LINT) -> set[str]:
    """The files a run reports, relative to the project root."""
    done = subprocess.run([*command, *arguments], capture_output=True, text=True, cwd=cwd, env={**os.environ, "NO_COLOR": "1"})
    lines = done.stdout.splitlines()
    assert (done.returncode, done.stderr) == (1 if lines else 0, ""), done.stderr
    assert all(line.split(" ")[1] == "WG001" for line in lines), lines  # each file is PINNING: one WG001, nothing else
    paths = [Path(os.path.normpath(cwd / line.split(":")[0])).relative_to(root).as_posix() for line in lines]
    assert len(set(paths)) == len(paths), f"a file reported twice: {paths}"
    return set(paths)


ALL = {"a.py", "b.py", "pkg/keep.py", "pkg/train_stats.py"}  # generated/ (configured) and build/ (default) are skipped


def test_configured_patterns_are_relative_to_the_file_whatever_the_spelling_of_the_paths(project: Path) -> None:
    for cwd, path in ((project, "."), (project, "./"), (Path("/"), str(project)), (project / "pkg", ".."),
                      (project.parent, "proj"), (project / "generated", "..")):
        assert reported(project, path, cwd=cwd) == ALL, (cwd, path)


@pytest.mark.parametrize(
    ("cwd", "arguments", "left_out"),
    [
        (".", ["--extend-exclude", "./pkg/train_stats.py", "."], {"pkg/train_stats.py"}),
        (".", ["--extend-exclude", "*/train_stats.py", "."], {"pkg/train_stats.py"}),
        (".", ["--extend-exclude", "train_stats.py", "."], {"pkg/train_stats.py"}),
        (".", ["--extend-exclude", "a.py,b.py", "."], {"a.py", "b.py"}),
        (".", ["--extend-exclude", "a.py", "--extend-exclude", "./b.py", "."], {"a.py", "b.py"}),
        (".", ["--extend-exclude", "./pkg/", "."], {"pkg/keep.py", "pkg/train_stats.py"}),
        ("pkg", ["--extend-exclude", "./train_stats.py", ".."], {"pkg/train_stats.py"}),
        ("pkg", ["--extend-exclude", "../a.py", ".."], {"a.py"}),
        ("pkg", ["--extend-exclude", "*/proj/b.py", ".."], {"b.py"}),
        ("..", ["--extend-exclude", "proj/pkg/*", "proj"], {"pkg/keep.py", "pkg/train_stats.py"}),
    ],
)
def test_command_line_patterns_are_relative_to_the_working_directory(project: Path, cwd: str, arguments: list[str], left_out: set[str]) -> None:
    assert reported(project, *arguments, cwd=project / cwd) == ALL - left_out


def test_exclude_replaces_the_configured_patterns_and_the_defaults_extend_exclude_adds(project: Path) -> None:
    everything = ALL | {"generated/g.py", "build/lib/copy.py"}
    (project / "pyproject.toml").write_text('[tool.weakglobals]\nexclude = ["generated"]\n')
    assert reported(project, ".", cwd=project) == everything - {"generated/g.py"}, "exclude replaces the default list"
    assert reported(project, "--exclude", "a.py", ".", cwd=project) == everything - {"a.py"}, "the flag replaces the file's"
    (project / "pyproject.toml").write_text('[tool.weakglobals]\nextend-exclude = ["generated"]\n')
    assert reported(project, "--extend-exclude", "a.py", ".", cwd=project) == ALL - {"a.py"}, "both add to the defaults"


def test_files_named_one_by_one_are_excluded_too(project: Path) -> None:
    """As pre-commit runs a hook: every file named, so a pattern matches the file or a directory it is in."""
    named = [name for name in FILES if not name.startswith("build/")]
    assert reported(project, *named, cwd=project) == ALL
    assert reported(project, "--extend-exclude", "pkg", *named, cwd=project) == ALL - {"pkg/keep.py", "pkg/train_stats.py"}
    assert reported(project, "build/lib/copy.py", cwd=project) == {"build/lib/copy.py"}, "a named file is checked, default list or not"


def test_the_codemod_excludes_the_same_files(project: Path) -> None:
    fix = [sys.executable, "-m", "fixes.apply", "--check", "--runtime", "import"]
    done = subprocess.run([*fix, "--extend-exclude", "*/train_stats.py", ".."], capture_output=True, text=True, cwd=project / "pkg",
                          env={**os.environ, "NO_COLOR": "1"})
    assert (done.returncode, done.stderr) == (1, ""), done.stderr
    *lines, summary = [line for line in done.stdout.splitlines() if not line.startswith(" ")]  # a fix's proof is indented
    changed = sorted(Path(os.path.normpath(project / "pkg" / line.removesuffix(": WG001 names"))).relative_to(project).as_posix() for line in lines)
    assert changed == sorted(ALL - {"pkg/train_stats.py"}) and summary.startswith("would fix 3 containers in 3 files;"), done.stdout


@pytest.mark.parametrize("name, reports", [("a.py", True), ("generated/g.py", False), ("build/lib/copy.py", False), (".git/x.py", False)])
def test_standard_input_named_as_an_excluded_file_is_not_reported(project: Path, name: str, reports: bool) -> None:
    """An editor checks the buffer as ``--stdin-filename PATH``: a file the project's own run skips (by its
    configured or the default patterns) must not be flagged there either, as flake8 does not."""
    done = subprocess.run([*LINT, "--stdin-filename", name, "-"], input=PINNING, capture_output=True, text=True, cwd=project)
    assert (done.returncode, done.stderr) == ((1, "") if reports else (0, "")), done.stderr
    assert (": WG001 " in done.stdout) is reports
