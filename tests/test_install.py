"""A normal, non-editable install in a fresh virtual environment, in a project with its own ``fixes`` package.

The top-level name ``fixes`` can clash with a user's package: ``python -m fixes.apply`` run from such a
project finds theirs first (the working directory leads ``sys.path``), while the console script
``weakglobals-fix`` imports ours from the environment (its ``sys.path`` starts with the script's directory). The environment sees the system's site-packages
(torch is not installed twice) but gets its own copy of this package, built from the working tree.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PINNING, REPO


@pytest.fixture(scope="module")
def environment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("install")
    source = root / "source"  # only what a build needs: no build/ or egg-info left in the working tree
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    for package in ("flake8_weakglobals", "fixes"):
        shutil.copytree(REPO / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True)
    installed = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", str(source)],
        capture_output=True, text=True,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return venv


def test_weakglobals_fix_works_beside_a_users_own_fixes_package(environment: Path, tmp_path: Path) -> None:
    (tmp_path / "fixes").mkdir()
    (tmp_path / "fixes" / "__init__.py").write_text('"""The user\'s own fixes."""\n')
    module = tmp_path / "pins.py"
    module.write_text(PINNING)
    where = subprocess.run([str(environment / "bin" / "python"), "-c", "import fixes.apply; print(fixes.apply.__file__)"],
                           capture_output=True, text=True, cwd=environment)
    assert where.stdout.startswith(str(environment / "lib")), "the non-editable copy, not the working tree"

    done = subprocess.run([str(environment / "bin" / "weakglobals-fix"), "."], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[:2] == ["_weakglobals_runtime.py: created the vendored runtime", "pins.py: WG001 names"]
    assert "names = WeakIdMap()" in module.read_text()
    assert (tmp_path / "_weakglobals_runtime.py").read_text().startswith("# Vendored by flake8-weakglobals")
