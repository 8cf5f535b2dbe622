"""The README cannot rot: its set-up commands are what CI runs, every ``console`` block is run here and its
output compared, every configuration snippet is validated, every benchmark command is smoke-run."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, readme_blocks
from flake8_weakglobals.frontends.config import parse_extra_types, settings_from_table

README = (REPO / "README.md").read_text()
BLOCKS = readme_blocks()
CONSOLE = [text for language, text in BLOCKS if language == "console"]
ENVIRONMENT = {**os.environ, "NO_COLOR": "1"}


def test_the_readme_starts_with_exactly_two_commands() -> None:
    (first_language, first), (second_language, second) = BLOCKS[:2]
    assert README.index("```") < README.index("\n## ") and README.split("```")[4].count("\n## ") > 0
    assert first_language == second_language == "bash" and first.count("\n") == second.count("\n") == 1
    assert first.startswith("pip install -e . && flake8 --select WG examples/pinning.py; python -m fixes.apply --diff")
    assert second.startswith("pip install torch==2.13.0 && pip install -e '.[test]' -c constraints-test.txt && python -m pytest")


def test_ci_runs_the_readme_test_command() -> None:
    assert BLOCKS[1][1].strip() in (REPO / ".ci" / "run").read_text().splitlines()


def test_every_test_dependency_is_pinned_by_the_constraints_file() -> None:
    """A bare lower bound lets a new release change the suite overnight (hypothesis 6.170 changed a draw):
    every package the test extra names, and everything installed with it, is pinned to one version."""
    from flake8_weakglobals.frontends.config import tomllib

    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    wanted = {re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].lower().replace("_", "-") for requirement in extra}
    pins = {}
    for line in (REPO / "constraints-test.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version and re.fullmatch(r"[\w.]+", version), f"not an exact pin: {line}"
            pins[name.lower().replace("_", "-")] = version
    assert wanted <= set(pins), sorted(wanted - set(pins))
    assert pins["torch"] == "2.13.0"


def copy_examples(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, shell=True, capture_output=True, text=True, cwd=cwd, env=ENVIRONMENT)


def test_the_first_command_shows_the_findings_then_the_fix(tmp_path: Path) -> None:
    demo = BLOCKS[0][1].strip().split(" && ", 1)[1]  # the install itself is what CI's set-up did
    done = shell(demo, copy_examples(tmp_path))
    assert done.stdout.count(": WG001 module-level dict") == 2
    assert done.stdout.index("WG001") < done.stdout.index("+module_names = WeakIdMap()")


@pytest.mark.parametrize("block", CONSOLE, ids=lambda block: block.splitlines()[0][2:42])
def test_console_blocks_show_what_the_commands_print(block: str, tmp_path: Path) -> None:
    cwd = copy_examples(tmp_path)
    for command, *expected in (part.split("\n") for part in re.split(r"^\$ ", block, flags=re.MULTILINE)[1:]):
        done = shell(command, cwd)
        shown = [line.rstrip() for line in expected]
        while shown and not shown[-1]:  # the blank line that ends a command's part of the block
            shown.pop()
        assert [line.rstrip() for line in done.stdout.splitlines()] == shown, command


def test_pre_commit_snippets_are_valid_configs(tmp_path: Path) -> None:
    snippets = [text for language, text in BLOCKS if language == "yaml" and text.startswith("repos:")]
    assert len(snippets) == 3
    for snippet in snippets:
        (tmp_path / ".pre-commit-config.yaml").write_text(snippet)
        done = subprocess.run([sys.executable, "-m", "pre_commit", "validate-config", ".pre-commit-config.yaml"],
                              capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
    manifest = (REPO / ".pre-commit-hooks.yaml").read_text()
    assert all(f"id: {hook}\n" in manifest for hook in re.findall(r"- id: (weakglobals[\w-]*)", snippets[0]))


def test_configuration_snippets_are_accepted() -> None:
    import configparser

    from flake8_weakglobals.frontends.config import tomllib

    (toml,) = [text for language, text in BLOCKS if language == "toml" and "[tool.weakglobals]" in text]
    settings_from_table(tomllib.loads(toml)["tool"]["weakglobals"], Path("pyproject.toml"))
    (ini,) = [text for language, text in BLOCKS if language == "ini"]
    parser = configparser.ConfigParser()
    parser.read_string(ini)
    assert parse_extra_types(parser["flake8"]["weakglobals-extra-types"].split(","), "README")


@pytest.mark.parametrize("script", sorted(set(re.findall(r"`python (benchmarks/\w+\.py)`", README))))
def test_benchmark_commands_run(script: str) -> None:
    quick = [] if script.endswith("deepspeed_release.py") else ["--quick"]
    done = subprocess.run([sys.executable, script, *quick], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert "|---|" in done.stdout
