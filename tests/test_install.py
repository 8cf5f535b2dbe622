"""A normal, non-editable install in a fresh virtual environment, in a project with its own ``fixes`` package.

The top-level name ``fixes`` can clash with a user's package: ``python -m fixes.apply`` run from such a
project finds theirs first (the working directory leads ``sys.path``), while the console script
``weakglobals-fix`` imports ours from the environment (its ``sys.path`` starts with the script's directory).

Nothing here depends on the interpreter the test environment was made from (a fresh machine's base Python
has an old setuptools that cannot build this project): the wheel is built by the test environment's own
setuptools, and the new environment reaches the test environment's packages (libcst, flake8) through a
``.pth`` line rather than through the base's site-packages, while getting its own copy of this package.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
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
    wheels = root / "wheels"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--wheel-dir", str(wheels), str(source)],
        capture_output=True, text=True,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    own = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], capture_output=True, text=True, check=True)
    (Path(own.stdout.strip()) / "_test_environment.pth").write_text(sysconfig.get_path("purelib") + "\n")
    installed = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", *map(str, wheels.glob("*.whl"))],
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

    done = subprocess.run([str(environment / "bin" / "weakglobals-fix"), "--runtime", "vendor", "."], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    created, fixed = done.stdout.splitlines()[:2]
    assert created.startswith("_weakglobals_runtime.py: created the vendored runtime (") and fixed == "pins.py: WG001 names"
    assert "names = _WeakIdMap()" in module.read_text()
    assert (tmp_path / "_weakglobals_runtime.py").read_text().startswith("# Vendored by flake8-weakglobals")
