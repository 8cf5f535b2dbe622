"""The plugin as users run it: ``flake8 --select WG`` in a subprocess (and, last, the checker class itself,
called in-process, for what only a patched analysis can show)."""
from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import flake8_weakglobals.frontends.flake8_plugin as plugin
from conftest import LINT_FIXTURES, expected_findings, installed_package

REPORT = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>WG\d{3}) (?P<message>.+)$")
WEAKGLOBALS = str(Path(sysconfig.get_path("scripts")) / "weakglobals")  # this environment's, whatever PATH says
#: A file with this line makes the analysis raise under ``failing_analysis``.
FAIL_HERE = "# the analysis fails on this file"
#: Installed as ``sitecustomize`` (which Python imports at startup, in flake8's worker processes too), it makes
#: the plugin's analysis raise on a file that has FAIL_HERE, as a bug of ours would: each failure a real file
#: caused was a bug, and is fixed, so no real file is kept that makes the analysis fail.
_FAILING_ANALYSIS = f"""\
import flake8_weakglobals.frontends.flake8_plugin as plugin

_analyze = plugin.analyze


def analyze(tree, source, *rest):
    if {FAIL_HERE!r} in source:
        raise KeyError("a bug")
    return _analyze(tree, source, *rest)


plugin.analyze = analyze
"""
WG000 = "WG000 internal error in flake8-weakglobals, please report it: KeyError('a bug')"


def flake8(*arguments: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "WG", *arguments],
        capture_output=True, text=True, cwd=cwd,
    )


def reports(output: str) -> list[re.Match[str]]:
    return [match for line in output.splitlines() if (match := REPORT.match(line))]


def failing_analysis(directory: Path) -> dict[str, str]:
    """The environment for a subprocess whose analysis fails on FAIL_HERE files (``_FAILING_ANALYSIS``, put in
    ``directory``)."""
    directory.mkdir()
    (directory / "sitecustomize.py").write_text(_FAILING_ANALYSIS)
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(directory), os.environ.get("PYTHONPATH")]))}


def test_flake8_reports_every_fixture_expectation() -> None:
    fixtures = sorted(LINT_FIXTURES.glob("*.py"))
    done = flake8(*map(str, fixtures))
    assert done.returncode == 1, done.stderr
    found = {(Path(m["path"]).name, int(m["line"]), m["code"]) for m in reports(done.stdout)}
    expected = {(fixture.name, line, code) for fixture in fixtures for line, code in expected_findings(fixture)}
    assert found == expected


SELECTIONS = [
    ((), {"WG001", "WG007"}),
    (("--select", "WG"), {"WG001", "WG007"}),
    (("--select", "WG00"), {"WG001", "WG007"}),
    (("--select", "WG007"), {"WG007"}),
    (("--select", "WG", "--ignore", "WG007"), {"WG001"}),
]


@pytest.mark.parametrize("arguments, codes", SELECTIONS, ids=lambda value: " ".join(value) if isinstance(value, tuple) else "")
def test_selection_by_prefix_is_flake8s_in_both_frontends(arguments: tuple[str, ...], codes: set[str]) -> None:
    """``--select WG`` (the README's selection) is every code, WG007 included, in flake8 and ``weakglobals``
    alike; a code or prefix in ``--ignore`` drops it."""
    fixture = str(LINT_FIXTURES / "WG007.py")
    in_flake8 = subprocess.run([sys.executable, "-m", "flake8", "--isolated", *arguments, fixture], capture_output=True, text=True)
    assert {m["code"] for m in reports(in_flake8.stdout)} == codes, in_flake8.stderr
    standalone = subprocess.run([WEAKGLOBALS, "--isolated", *arguments, fixture], capture_output=True, text=True)
    assert {m["code"] for m in reports(standalone.stdout)} == codes, standalone.stderr


def test_selection_from_configuration_files(tmp_path: Path) -> None:
    module = tmp_path / "pool.py"
    module.write_text((LINT_FIXTURES / "WG007.py").read_text())
    (tmp_path / "setup.cfg").write_text("[flake8]\nselect = WG\nextend-ignore = WG001\n")
    (tmp_path / "pyproject.toml").write_text('[tool.weakglobals]\nselect = ["WG"]\nignore = ["WG001"]\n')
    in_flake8 = subprocess.run([sys.executable, "-m", "flake8", "pool.py"], capture_output=True, text=True, cwd=tmp_path)
    standalone = subprocess.run([WEAKGLOBALS, "pool.py"], capture_output=True, text=True, cwd=tmp_path)
    for done in (in_flake8, standalone):
        assert {m["code"] for m in reports(done.stdout)} == {"WG007"}, done.stderr
    assert "list `pool` holds tensors it allocates itself (built by `torch.empty(...)` at line 16)" in standalone.stdout


def test_deepspeed_0196_debug_maps_are_reported_with_clear_messages() -> None:
    done = flake8(str(installed_package("deepspeed") / "utils" / "debug.py"))
    found = [(int(m["line"]), int(m["col"]), m["code"], m["message"]) for m in reports(done.stdout)]
    assert [(line, col, code) for line, col, code, _ in found] == [(12, 1, "WG001"), (13, 1, "WG001")]
    assert found[0][3].startswith("module-level dict `module_names` is keyed by nn.Module objects")
    assert "(from `model.named_modules()` at line 28)" in found[0][3]
    assert "`param_names` is keyed by nn.Parameter objects (from `model.named_parameters()` at line 29)" in found[1][3]
    assert done.returncode == 1


def test_deepspeed_0198_fixed_debug_is_silent(deepspeed_0198: Path) -> None:
    done = flake8(str(deepspeed_0198 / "deepspeed" / "utils" / "debug.py"))
    assert (done.returncode, done.stdout) == (0, "")


def test_noqa_is_honoured_by_code_and_bare(tmp_path: Path) -> None:
    (tmp_path / "pins.py").write_text(
        "from torch import nn\n"
        "a = {}  # noqa: WG001\n"
        "b = {}  # noqa\n"
        "c = {}  # noqa: WG002\n"
        "def fill(model: nn.Module):\n"
        "    a[model] = b[model] = c[model] = 1\n"
    )
    done = flake8("pins.py", cwd=tmp_path)
    assert [(m["line"], m["code"]) for m in reports(done.stdout)] == [("4", "WG001")]


def test_extra_types_come_from_the_flake8_config(tmp_path: Path) -> None:
    (tmp_path / "graph.py").write_text("from mylib.graph import Node\nd = {}\ndef f(n: Node):\n    d[n] = 1\n")
    (tmp_path / "setup.cfg").write_text("[flake8]\nweakglobals-extra-types = mylib.graph.Node\n")
    configured = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "WG", "graph.py"], capture_output=True, text=True, cwd=tmp_path
    )
    assert (configured.returncode, configured.stderr, [m["code"] for m in reports(configured.stdout)]) == (1, "", ["WG001"])
    assert "`mylib.graph.Node` objects" in configured.stdout
    isolated = flake8("graph.py", cwd=tmp_path)
    assert (isolated.returncode, isolated.stdout, isolated.stderr) == (0, "", "")  # --isolated ignores the config: nothing to report


def test_a_bad_extra_type_is_a_clear_error_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    done = flake8("--weakglobals-extra-types", "not-a-name", "a.py", cwd=tmp_path)
    assert done.returncode == 2
    assert "weakglobals-extra-types" in done.stderr and "'not-a-name' is not a qualified class name" in done.stderr
    assert "Traceback" not in done.stderr


def test_flake8_never_analyses_a_file_that_mentions_no_framework(tmp_path: Path) -> None:
    """The prefilter, as users run flake8: an analysis that fails on every file it sees (FAIL_HERE) reports
    WG000 on a torch module, and nothing on a module that names no framework, which it never saw."""
    (tmp_path / "plain.py").write_text(f"cache = {{}}\n\n\ndef f(x):\n    cache[x] = 1  {FAIL_HERE}\n")
    (tmp_path / "uses_torch.py").write_text(f"import torch  {FAIL_HERE}\n")
    done = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "WG", "plain.py", "uses_torch.py"],
        capture_output=True, text=True, cwd=tmp_path, env=failing_analysis(tmp_path / "site"),
    )
    assert (done.returncode, done.stdout, done.stderr) == (1, f"uses_torch.py:1:1: {WG000}\n", "")


def test_the_checker_skips_the_analysis_of_a_file_that_mentions_no_framework(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process: the checker class with its analysis replaced by one that fails the test if called."""

    def explode(*arguments: object) -> None:
        raise AssertionError("analysed a file that mentions no framework")

    monkeypatch.setattr(plugin, "analyze", explode)
    source = "cache = {}\ndef f(x):\n    cache[x] = 1\n"
    assert list(plugin.WeakGlobalsChecker(ast.parse(source), source.splitlines(True)).run()) == []
