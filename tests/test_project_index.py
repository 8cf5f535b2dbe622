"""The project index: evidence from the other modules of a project, each class of idiom in a fixture
project of several files under ``tests/fixtures/projects/`` with its expectations inline, and the index's
robustness (cycles, broken and missing modules, stale, corrupt and unwritable caches) through the real command lines."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, expected_findings
from flake8_weakglobals.frontends.check_one_file import check_file
from flake8_weakglobals.frontends.config import Settings
from flake8_weakglobals.index.project import ProjectIndex, files_stay_put
from flake8_weakglobals.index.import_lines import import_statements

PROJECTS = REPO / "tests" / "fixtures" / "projects"
CASES = sorted(path.name for path in PROJECTS.iterdir() if path.is_dir())


@pytest.fixture(autouse=True)
def no_disk_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEAKGLOBALS_NO_CACHE", "1")  # fixtures stay clean; the cache has its own tests


def found_and_expected(project: Path) -> tuple[set[tuple[str, int, str]], set[tuple[str, int, str]]]:
    found, expected = set(), set()
    for path in sorted(project.rglob("*.py")):
        relative = path.relative_to(project).as_posix()
        checked = check_file(path, Settings())
        assert checked.error is None or "broken" in relative, checked.error
        found |= {(relative, finding.line, finding.code) for finding in checked.findings}
        expected |= {(relative, line, code) for line, code in expected_findings(path)}
    return found, expected


@pytest.mark.parametrize("case", CASES)
def test_each_cross_module_idiom_is_found_and_nothing_else(case: str) -> None:
    found, expected = found_and_expected(PROJECTS / case)
    assert found == expected


def weakglobals(*arguments: str, cwd: Path, **environment: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", **environment}
    env.pop("WEAKGLOBALS_NO_CACHE", None)
    return subprocess.run([sys.executable, "-m", "flake8_weakglobals.frontends.command", *arguments], cwd=cwd, env=env, capture_output=True, text=True)


def test_flake8_resolves_other_modules_as_a_user_runs_it(tmp_path: Path) -> None:
    project = shutil.copytree(PROJECTS / "bases", tmp_path / "bases")
    done = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "WG", "-j", "2", "pkg"], cwd=project, capture_output=True, text=True
    )
    assert (done.returncode, done.stderr) == (1, ""), done.stderr
    assert sorted(line.split(" ")[0] for line in done.stdout.splitlines()) == [
        "pkg/models/yarn.py:11:6:", "pkg/models/yarn.py:17:6:",
    ]


def test_a_checkout_without_a_marker_is_the_project_it_is_run_in(tmp_path: Path) -> None:
    """An archive or a zip download has no ``.git``, and research code often neither ``pyproject.toml`` nor
    ``__init__.py``: run inside it, its top-level directories still import each other (``from pkg.patching
    import build``), as Python sees them from there; run from outside, they are separate scripts."""
    checkout = shutil.copytree(PROJECTS / "loaded_elsewhere", tmp_path / "checkout")
    (checkout / "pyproject.toml").unlink()
    (checkout / "pkg" / "__init__.py").unlink()
    slots = checkout / "pkg" / "slots.py"
    slots.write_text(slots.read_text().replace("from .patching import", "from pkg.patching import"))
    inside = weakglobals("--select", "WG", ".", cwd=checkout, WEAKGLOBALS_NO_CACHE="1")
    assert (inside.returncode, inside.stderr) == (1, ""), inside.stderr
    assert [line.split(" ")[0] for line in inside.stdout.splitlines() if "slots.py" in line] == [
        "pkg/slots.py:6:1:", "pkg/slots.py:7:1:", "pkg/slots.py:8:1:", "pkg/slots.py:12:1:",
    ], inside.stdout
    outside = weakglobals("--select", "WG", "checkout", cwd=tmp_path, WEAKGLOBALS_NO_CACHE="1")
    assert "slots.py" not in outside.stdout, outside.stdout


def test_a_changed_base_class_is_seen_by_the_next_run(tmp_path: Path) -> None:
    project = shutil.copytree(PROJECTS / "bases", tmp_path / "bases")
    cache = tmp_path / "cache"
    first = weakglobals("pkg", cwd=project, WEAKGLOBALS_CACHE_DIR=str(cache))
    assert (first.returncode, first.stderr, first.stdout.count("WG006")) == (1, "", 2) and any(cache.glob("*.json"))
    base = project / "pkg" / "base.py"
    base.write_text(base.read_text().replace("class RotaryEmbedding(nn.Module):", "class RotaryEmbedding:"))
    second = weakglobals("pkg", cwd=project, WEAKGLOBALS_CACHE_DIR=str(cache))
    # the methods still cache the tensors they make, keyed by self, but self is no module any more
    assert (second.returncode, second.stderr, second.stdout.count("WG006")) == (1, "", 2), second.stdout + second.stderr
    assert "nn.Module" in first.stdout and "nn.Module" not in second.stdout, second.stdout


def test_the_cache_lives_in_the_project_root_by_default_and_is_ignored_by_git(tmp_path: Path) -> None:
    project = shutil.copytree(PROJECTS / "bases", tmp_path / "bases")
    done = weakglobals("pkg/models", cwd=project)
    assert (done.returncode, done.stderr) == (1, ""), done.stderr
    cache = project / ".weakglobals_cache"
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"
    assert len(list(cache.glob("*.json"))) >= 1


def test_an_unwritable_cache_directory_only_costs_time(tmp_path: Path) -> None:
    project = shutil.copytree(PROJECTS / "bases", tmp_path / "bases")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    done = weakglobals("pkg", cwd=project, WEAKGLOBALS_CACHE_DIR=str(blocker / "cache"))
    assert done.returncode == 1 and done.stdout.count("WG006") == 2 and done.stderr == ""


def test_a_corrupt_cache_entry_is_rebuilt(tmp_path: Path) -> None:
    project = shutil.copytree(PROJECTS / "bases", tmp_path / "bases")
    cache = tmp_path / "cache"
    first = weakglobals("pkg", cwd=project, WEAKGLOBALS_CACHE_DIR=str(cache))
    entries = sorted(cache.glob("*.json"))
    assert first.returncode == 1 and entries, first.stderr
    for entry in entries:
        entry.write_text('{"format": ')
    done = weakglobals("pkg", cwd=project, WEAKGLOBALS_CACHE_DIR=str(cache))
    assert (done.returncode, done.stdout, done.stderr) == (1, first.stdout, "")
    assert all(entry.read_text().startswith('{"format": "') for entry in entries), "a corrupt entry was not rebuilt"


def test_a_cache_shared_by_flake8_workers_and_runs_changes_no_finding(tmp_path: Path) -> None:
    """Two flake8 workers fill one cache (the first run) and read it (the second): both report what a run in
    one process without any cache reports, and no temporary entry is left. Whether the two workers ever
    write the same entry at the same moment is the scheduler's to decide, so it is not claimed here: what
    makes that safe (a temporary file renamed over the entry) is what leaves no temporary file behind."""
    project = shutil.copytree(PROJECTS / "idioms", tmp_path / "idioms")
    for index in range(12):  # many files that ask about the same modules, in both workers
        shutil.copyfile(project / "pkg" / "call_sites.py", project / "pkg" / f"copy_{index}.py")
    flake8 = [sys.executable, "-m", "flake8", "--select", "WG", "pkg"]
    alone = subprocess.run([*flake8, "-j", "1"], cwd=project, capture_output=True, text=True, env={**os.environ, "WEAKGLOBALS_NO_CACHE": "1"})
    assert (alone.returncode, alone.stderr, alone.stdout.count("WARNED")) == (1, "", 13), alone.stderr
    assert not (project / ".weakglobals_cache").exists()
    environment = {key: value for key, value in os.environ.items() if key != "WEAKGLOBALS_NO_CACHE"}
    for _ in range(2):
        shared = subprocess.run([*flake8, "-j", "2"], cwd=project, capture_output=True, text=True, env=environment)
        assert (shared.returncode, shared.stdout, shared.stderr) == (1, alone.stdout, ""), shared.stderr
        assert any((project / ".weakglobals_cache").glob("*.json"))
    assert not list((project / ".weakglobals_cache").glob(".*.tmp"))


def test_the_codemod_refuses_a_container_another_module_uses_unsafely(tmp_path: Path) -> None:
    project = shutil.copytree(PROJECTS / "outside", tmp_path / "outside")

    def run_program() -> str:
        done = subprocess.run([sys.executable, "-m", "pkg.use"], cwd=project, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    before = run_program()
    fixed = subprocess.run([sys.executable, "-m", "fixes.apply", "pkg"], cwd=project, capture_output=True, text=True)
    assert fixed.returncode == 1, fixed.stderr  # one container left to fix by hand
    assert "pkg/state.py: WG001 names" in fixed.stdout
    assert "WG001 registry left as is: `pkg/use.py` line 17 uses it as `pickle.dumps(state.registry)`" in fixed.stdout
    state = (project / "pkg" / "state.py").read_text()
    assert "names = _WeakIdMap()" in state and "registry = {}" in state
    assert run_program() == before  # the differential check: the program does what it did


@pytest.mark.parametrize(
    ("text", "module", "statements"),
    [
        ("from .flexprefill import flexprefill_forward\n", "minference.modules.forward", [("minference.modules.flexprefill", ["flexprefill_forward"])]),
        ("from ..modules.flexprefill import f\n", "minference.modules.tri_mix", [("minference.modules.flexprefill", ["f"])]),
        ("from . import masks\n", "pkg.predict", [("pkg", ["masks"])]),
        ("from .masks import (\n    causal,\n)\n", "pkg.predict", [("pkg.masks", ["causal"])]),
        ("import pyro.distributions.hmm\n", "examples.sir_hmc", [("pyro.distributions.hmm", None)]),
    ],
)
def test_an_import_read_as_text_names_the_absolute_module_from_its_package(text: str, module: str, statements: list) -> None:
    """Whether a sibling imports a module (``used_by_its_package``) rests on this: pyro's ``import
    pyro.distributions.hmm`` beside ``examples/hmm.py`` names another module."""
    assert list(import_statements(text, module, False)) == statements


def test_a_run_that_only_reads_looks_at_each_module_once_and_the_next_run_looks_again(tmp_path: Path) -> None:
    """The linter's run trusts what it read of a module until it ends (files it only reads stay put); outside
    such a run, and in the next one, a changed module is read again."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    models = package / "models.py"
    models.write_text("from torch import nn\n\n\nclass Net(nn.Module):\n    pass\n")
    index = ProjectIndex([tmp_path], cache=None)
    with files_stay_put():
        assert index.is_class("pkg.models.Net")
        models.write_text("Net = None  # no longer a class, and a different size\n")
        assert index.is_class("pkg.models.Net"), "read again within the run"
    assert not index.is_class("pkg.models.Net"), "the change went unseen outside the run"
    with files_stay_put():
        assert not index.is_class("pkg.models.Net"), "what the last run kept was trusted in this one"
