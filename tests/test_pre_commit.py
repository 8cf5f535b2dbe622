"""The hooks with the real pre-commit, in a temporary git repository that pins modules the DeepSpeed way.

The README's form is used exactly as the README shows it: a ``local`` hook that runs the installed package
(the ``weakglobals`` beside this interpreter, first on ``PATH`` as in an activated venv). The forms that
name a hook repository get this checkout and its HEAD (what is committed is what is tested); pre-commit
builds their environment once per session under a temporary PRE_COMMIT_HOME.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, doc_pages, page_blocks, readme_block, require

PINNING = '''"""A module with DeepSpeed-style pinning globals."""
module_names = {}


def extract(model):
    global module_names
    module_names = {module: name for name, module in model.named_modules()}
'''


def run(*command: str, cwd: Path, environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=environment)


@pytest.fixture(scope="module")
def environment(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    require(shutil.which("git") is not None and (REPO / ".git").exists(), "git and a git checkout of this repository")
    home = tmp_path_factory.mktemp("pre-commit-home")
    names = {"GIT_AUTHOR_NAME": "User", "GIT_AUTHOR_EMAIL": "user@example.com"}
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])  # as an activated venv has it
    return {**os.environ, **names, "GIT_COMMITTER_NAME": "User", "GIT_COMMITTER_EMAIL": "user@example.com",
            "PRE_COMMIT_HOME": str(home), "NO_COLOR": "1", "PATH": path}


@pytest.fixture(scope="module")
def head() -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=REPO, check=True).stdout.strip()


def pre_commit(*arguments: str, cwd: Path, environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run(sys.executable, "-m", "pre_commit", *arguments, "--color", "never", cwd=cwd, environment=environment)


def test_the_manifest_is_valid(environment: dict[str, str]) -> None:
    done = run(sys.executable, "-m", "pre_commit", "validate-manifest", ".pre-commit-hooks.yaml", cwd=REPO, environment=environment)
    assert done.returncode == 0, done.stdout + done.stderr


def readme_config() -> str:
    """The README's ``.pre-commit-config.yaml``: its first, the form that works before any release."""
    (first, *_) = [text for language, text in page_blocks(REPO / "README.md") if language == "yaml" and text.startswith("repos:")]
    return first


def test_a_user_repository_through_four_runs(tmp_path: Path, environment: dict[str, str]) -> None:
    """The README's snippet as written, through the four things a user does with it."""
    project = tmp_path / "project"
    project.mkdir()
    run("git", "init", "-q", cwd=project, environment=environment)
    (project / "pins.py").write_text(PINNING)
    (project / "README.md").write_text("A project.\n")
    (project / ".pre-commit-config.yaml").write_text(readme_config())
    run("git", "add", "-A", cwd=project, environment=environment)

    first = pre_commit("run", "--all-files", cwd=project, environment=environment)
    print("--- run 1: pre-commit run --all-files\n" + first.stdout)
    assert first.returncode == 1, first.stdout + first.stderr
    shown = "".join(line for line in first.stdout.splitlines(keepends=True) if not line.startswith("[INFO]"))
    assert "$ pre-commit run --all-files\n" + shown.rstrip() == readme_block("$ pre-commit run --all-files\n").rstrip()
    assert "module_names = _WeakIdMap()" in (project / "pins.py").read_text()
    assert "class _WeakIdMap(" in (project / "pins.py").read_text() and not (project / "_weakglobals_runtime.py").exists()

    run("git", "add", "-A", cwd=project, environment=environment)
    second = pre_commit("run", "--all-files", cwd=project, environment=environment)
    print("--- run 2: git add -A; pre-commit run --all-files\n" + second.stdout)
    assert second.returncode == 0, second.stdout + second.stderr

    third = pre_commit("run", "--files", "README.md", cwd=project, environment=environment)
    print("--- run 3: pre-commit run --files README.md\n" + third.stdout)
    assert third.returncode == 0 and third.stdout.count("(no files to check)Skipped") == 2, third.stdout

    assert pre_commit("install", cwd=project, environment=environment).returncode == 0
    (project / "clean.py").write_text("import torch\n\nsizes = {torch.float16: 2}\n")
    run("git", "add", "clean.py", cwd=project, environment=environment)
    fourth = run("git", "commit", "-q", "-m", "Add a clean module", cwd=project, environment=environment)
    print("--- run 4: git commit (the installed hook)\n" + fourth.stdout + fourth.stderr)
    assert fourth.returncode == 0, fourth.stdout + fourth.stderr
    assert "weakglobals" in fourth.stdout + fourth.stderr


HOME_URL = "https://github.com/flake8-weakglobals/flake8-weakglobals"
CLONE = "/path/to/your/clone/of/flake8-weakglobals"
SHA = "COMMIT_SHA"


def documented_forms() -> list[str]:
    """Every ``.pre-commit-config.yaml`` the docs show that runs this project's hooks (not the ruff one's
    own repository: out of reach here)."""
    return [text for page in doc_pages() for language, text in page_blocks(page)
            if language == "yaml" and text.startswith("repos:") and "weakglobals" in text]


def test_the_readme_form_works_today_and_the_published_one_is_marked() -> None:
    """A snippet pointing at the unpublished home repository gives a clone error to whoever copies it: the
    README leads with the form that needs none, and says of the other when it works."""
    assert HOME_URL not in readme_config() and "repo: local" in readme_config()
    readme = (REPO / "README.md").read_text()
    assert readme.index(readme_config()) < readme.index(f"repo: {HOME_URL}")
    assert "Once the project is published" in readme.split(readme_config())[1].split(f"repo: {HOME_URL}")[0]


@pytest.mark.parametrize("form", range(len(documented_forms())))
def test_every_documented_form_runs_with_the_real_pre_commit(form: int, tmp_path: Path, environment: dict[str, str], head: str) -> None:
    """Each config as the docs show it: the ``local`` forms exactly, the others with this checkout in place
    of the clone's placeholder or the home URL, and its HEAD in place of the sha or ``main``."""
    import yaml  # pre-commit's own dependency

    config = documented_forms()[form]
    config = config.replace(HOME_URL, str(REPO)).replace(CLONE, str(REPO)).replace(SHA, head).replace("rev: main", f"rev: {head}")
    document = yaml.safe_load(config)  # another tool's hook repository (ruff's) is out of reach here
    document["repos"] = [repo for repo in document["repos"] if repo["repo"] in ("local", str(REPO))]
    config = yaml.safe_dump(document)
    project = tmp_path / "project"
    project.mkdir()
    run("git", "init", "-q", cwd=project, environment=environment)
    (project / "pins.py").write_text(PINNING)
    (project / ".pre-commit-config.yaml").write_text(config)
    run("git", "add", "-A", cwd=project, environment=environment)
    done = pre_commit("run", "--all-files", cwd=project, environment=environment)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "pins.py:2:1: WG001 module-level dict `module_names` is keyed by nn.Module objects" in done.stdout, done.stdout
