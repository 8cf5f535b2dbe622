"""The command lines as linter users run them: configuration found from the paths given, ``--config`` and
``--isolated``; no paths meaning ``.`` (and an empty list from pre-commit meaning nothing); each entry point
naming itself. Everything runs as a subprocess, as users run it.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Optional

import pytest

from conftest import PINNING, require

LINT = [sys.executable, "-m", "flake8_weakglobals.frontends.command"]
FIX = [sys.executable, "-m", "fixes.apply"]
SCRIPTS = Path(sysconfig.get_path("scripts"))
ONLY_WG002 = '[tool.weakglobals]\nselect = ["WG002"]\n'  # PINNING is a WG001: with this, nothing is found


def run(command: list[str], *arguments: str, cwd: Path, environment: Optional[dict[str, str]] = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*command, *arguments], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "NO_COLOR": "1", **(environment or {})})
    assert "Traceback" not in done.stderr, done.stderr
    return done


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """``proj/`` configured to select WG002 only, with a WG001 module in ``proj/pkg``."""
    write(tmp_path / "proj" / "pyproject.toml", ONLY_WG002)
    write(tmp_path / "proj" / "pkg" / "pins.py", PINNING)
    write(tmp_path / "proj" / "other" / "more.py", PINNING)
    return tmp_path / "proj"


# --- item 4: configuration from the paths --------------------------------------------------------------------


def test_configuration_is_found_from_the_paths_given_not_the_working_directory(project: Path) -> None:
    outside = project.parent
    spellings = [(outside, "proj"), (outside, "proj/pkg/pins.py"), (project / "pkg", "."), (project / "pkg", ".."),
                 (Path("/"), str(project)), (outside, "proj/pkg", "proj/other")]
    for cwd, *paths in spellings:
        done = run(LINT, *paths, cwd=cwd)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), (cwd, paths)
    assert run([*FIX, "--check"], "proj", cwd=outside).returncode == 0
    assert run(LINT, "--isolated", "proj", cwd=outside).returncode == 1, "--isolated reads no file"


def test_the_nearest_pyproject_with_the_table_wins_and_others_are_passed_over(project: Path) -> None:
    write(project / "pkg" / "pyproject.toml", "[tool.black]\nline-length = 100\n")
    assert run(LINT, "pkg/pins.py", cwd=project).returncode == 0, "a pyproject.toml without [tool.weakglobals] is passed over"
    write(project / "pkg" / "pyproject.toml", '[tool.weakglobals]\nselect = ["WG001"]\n')
    assert run(LINT, "pkg/pins.py", cwd=project).returncode == 1, "the nearer table wins"


def test_config_names_the_file_and_its_patterns_are_relative_to_it(project: Path) -> None:
    write(project.parent / "conf" / "weakglobals.toml", '[tool.weakglobals]\nselect = ["WG001"]\nexclude = ["../proj/other"]\n')
    done = run(LINT, "--config", "../conf/weakglobals.toml", ".", cwd=project)
    assert (done.returncode, [line.split(":")[0] for line in done.stdout.splitlines()]) == (1, ["pkg/pins.py"]), done.stdout
    both = run(LINT, "--config", "../conf/weakglobals.toml", "--isolated", ".", cwd=project)
    assert both.returncode == 2 and "argument --isolated: not allowed with argument --config" in both.stderr
    missing = run(FIX, "--config", "missing.toml", ".", cwd=project)
    assert missing.returncode == 2 and missing.stderr == "missing.toml: no such file or directory\n"


# --- item 5: no paths ------------------------------------------------------------------------------------------


def test_no_paths_checks_the_working_directory_but_pre_commits_empty_list_checks_nothing(tmp_path: Path) -> None:
    module = write(tmp_path / "pkg" / "pins.py", PINNING)
    lint = run(LINT, cwd=tmp_path)
    assert lint.returncode == 1 and [line.split(" ")[:2] for line in lint.stdout.splitlines()] == [["pkg/pins.py:3:1:", "WG001"]], lint.stdout
    assert run([*FIX, "--check"], cwd=tmp_path).returncode == 1
    for command in (LINT, FIX):
        done = run(command, cwd=tmp_path, environment={"PRE_COMMIT": "1"})
        assert (done.returncode, done.stderr) == (0, ""), done
    assert "WG001" not in run(LINT, cwd=tmp_path, environment={"PRE_COMMIT": "1"}).stdout
    assert module.read_text() == PINNING


def test_real_pre_commit_runs_an_always_run_hook_with_no_files_as_a_no_op(tmp_path: Path) -> None:
    """pre-commit skips a hook that has no matching files (``run.py``: ``not filenames and not hook.always_run``);
    with ``always_run: true`` it runs it with none, which must check nothing. The hooks are local
    ``language: system`` ones, so that this working tree is what runs."""
    require(shutil.which("git") is not None, "git")
    environment = {"PRE_COMMIT_HOME": str(tmp_path / "home")}
    project = tmp_path / "project"
    write(project / "pins.py", PINNING)
    write(project / "README.md", "A project.\n")
    hooks = "".join(
        f"  - id: {name}\n    name: {name}\n    entry: {sys.executable} -m {module}\n    language: system\n    types: [python]\n{extra}"
        for name, module, extra in (("lint-always", "flake8_weakglobals.frontends.command", "    always_run: true\n"),
                                    ("fix-always", "fixes.apply --check", "    always_run: true\n"),
                                    ("lint", "flake8_weakglobals.frontends.command", ""))
    )
    write(project / ".pre-commit-config.yaml", f"repos:\n- repo: local\n  hooks:\n{hooks}")
    for git in (["git", "init", "-q"], ["git", "add", "-A"]):
        done = run(git, cwd=project, environment=environment)
        assert (done.returncode, done.stderr) == (0, ""), done.stderr
    pre_commit = [sys.executable, "-m", "pre_commit", "run", "--color", "never"]
    none = run(pre_commit, "--files", "README.md", cwd=project, environment=environment)
    assert none.returncode == 0, none.stdout + none.stderr
    assert hook_results(none.stdout) == [("lint-always", "Passed"), ("fix-always", "Passed"), ("lint", "(no files to check)Skipped")]
    some = run(pre_commit, "--files", "pins.py", cwd=project, environment=environment)
    assert some.returncode == 1, some.stdout + some.stderr
    assert hook_results(some.stdout) == [("lint-always", "Failed"), ("fix-always", "Failed"), ("lint", "Failed")]


def hook_results(output: str) -> list[tuple[str, str]]:
    """Each hook's name and result from pre-commit's ``NAME.....RESULT`` lines (other lines are hook output)."""
    return [(match["name"], match["result"]) for line in output.splitlines() if (match := re.match(r"^(?P<name>[\w-]+)\.{2,}(?P<result>.+)$", line))]


# --- item 7: each entry point names itself ------------------------------------------------------------------------

ENTRY_POINTS = {
    "weakglobals-fix": [str(SCRIPTS / "weakglobals-fix")],
    "python -m fixes.apply": FIX,
    "weakglobals": [str(SCRIPTS / "weakglobals")],
    "python -m flake8_weakglobals.frontends.command": LINT,
}


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_each_entry_point_names_itself_and_quiet_with_verbose_is_a_usage_error(name: str, tmp_path: Path) -> None:
    command = ENTRY_POINTS[name]
    require(Path(command[0]).exists(), f"the console script {command[0]} (pip install -e .)")
    assert run(command, "--help", cwd=tmp_path).stdout.startswith(f"usage: {name} [-h]")
    done = run(command, "-q", "-v", ".", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"usage: {name} [-h]")
    assert done.stderr.endswith(f"{name}: error: argument -v/--verbose: not allowed with argument -q/--quiet\n")


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_each_entry_point_leaves_without_tearing_the_heap_down_and_loses_no_output(name: str, tmp_path: Path) -> None:
    """A command's process ends right after its streams are flushed (``terminal.exit_after``): an ``atexit``
    handler, which a normal exit runs after freeing nothing yet, never runs, yet every line and the exit code
    are there, for a run with findings, a clean one, ``--help`` and a usage error."""
    command = ENTRY_POINTS[name]
    require(Path(command[0]).exists(), f"the console script {command[0]} (pip install -e .)")
    site = write(tmp_path / "site" / "sitecustomize.py", "import atexit, pathlib\natexit.register(pathlib.Path('torn-down').touch)\n").parent
    write(tmp_path / "pinning.py", PINNING)
    write(tmp_path / "clean.py", "x = 1\n")
    environment = {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    fixing = "fix" in name
    findings = run(command, "--check" if fixing else "--select=WG", "pinning.py", cwd=tmp_path, environment=environment)
    assert findings.returncode == 1, findings
    last = "1 file checked" if fixing else "module-level dict `names` is keyed by nn.Module objects (parameter `module: nn.Module` at line 6)"
    assert findings.stdout.splitlines()[-1].endswith(last), findings.stdout
    assert run(command, "clean.py", cwd=tmp_path, environment=environment).returncode == 0
    assert run(command, "--help", cwd=tmp_path, environment=environment).stdout.startswith(f"usage: {name} [-h]")
    assert run(command, "-q", "-v", ".", cwd=tmp_path, environment=environment).returncode == 2
    assert not (tmp_path / "torn-down").exists()
    subprocess.run([sys.executable, "-c", "pass"], cwd=tmp_path, env={**os.environ, **environment}, check=True)
    assert (tmp_path / "torn-down").exists(), "the handler runs in a process that exits normally"
