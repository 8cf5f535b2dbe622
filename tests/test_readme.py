"""The README and the pages under ``docs/`` cannot rot: every fenced block of every page is run by a test, as
written (``RUNS`` names it, and the inventory fails on a block no test runs), the README's set-up commands
are what CI runs, every benchmark command is smoke-run, and every relative link leads to a file and an anchor
that exist."""
from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PINNING, REPO, doc_pages, page_blocks, readme_blocks, require
from flake8_weakglobals.frontends.config import parse_extra_types, settings_from_table

README = (REPO / "README.md").read_text()
PAGES = doc_pages()  # the README, then docs/*.md
README_BLOCKS = page_blocks(REPO / "README.md")
BLOCKS = readme_blocks()  # every page's
CONSOLE = [(page, text) for page in PAGES for language, text in page_blocks(page) if language == "console"]
ENVIRONMENT = {**os.environ, "NO_COLOR": "1", "COLUMNS": "80"}  # pytest's separators in the census transcripts are 80 wide

#: The test that runs each fenced block of the README and ``docs/``: ``(page, language, how its text starts)``,
#: ``*`` for any page, to ``module::function``. Each block must match exactly one row, so a new block fails
#: ``test_every_block_is_run_by_exactly_one_test`` until a test runs it and a row here names that test.
RUNS: dict[tuple[str, str, str], str] = {
    ("README.md", "bash", "pip install -e . "): "test_readme::test_the_first_command_shows_the_findings_then_the_fix",
    ("README.md", "bash", "pip install torch=="): "test_readme::test_ci_runs_the_readme_test_command",
    ("*", "console", "$ "): "test_readme::test_console_blocks_show_what_the_commands_print",
    ("*", "yaml", "repos:"): "test_pre_commit::test_every_documented_form_runs_with_the_real_pre_commit",
    ("docs/pre-commit.md", "text", "$ pre-commit run --all-files\n"): "test_pre_commit::test_a_user_repository_through_four_runs",
    ("docs/pre-commit.md", "toml", "[tool.ruff.lint]"): "test_neighbours::test_ruff_configured_as_documented_keeps_our_noqa_and_without_it_deletes_it",
    ("docs/configuration.md", "ini", "[flake8]"): "test_readme::test_configuration_snippets_are_accepted",
    ("docs/configuration.md", "toml", "[tool.weakglobals]"): "test_readme::test_configuration_snippets_are_accepted",
    ("docs/configuration.md", "bash", "python -m flake8_weakglobals.analysis.derive_ecosystem "): "test_readme::test_the_ecosystem_table_derives_from_a_site",
    ("docs/configuration.md", "yaml", "name: weakglobals"): "test_readme::test_the_sarif_workflows_steps_run",
    ("docs/census.md", "bash", "python -m pytest --weakglobals"): "test_readme::test_the_census_command_reports_a_projects_pin",
    ("docs/census.md", "text", ""): "test_readme::test_census_transcripts_are_what_the_census_prints",
    ("docs/codemod.md", "python", "try:"): "test_readme::test_the_import_that_tries_both_ways_is_what_the_codemod_writes",
    ("docs/codemod.md", "text", "deepspeed/"): "test_fix_cli::test_the_whole_deepspeed_package_is_fixed_and_still_imports",
    ("docs/codemod.md", "text", "# --- flake8-weakglobals "): "test_readme::test_the_inline_blocks_first_lines_are_what_the_codemod_writes",
    ("docs/runtime.md", "pycon", ">>> "): "test_readme::test_the_runtime_pages_session_prints_what_it_shows",
    ("docs/accuracy.md", "bash", "python benchmarks/sweep.py "): "test_readme::test_the_sweep_rescore_without_the_trees_says_how_to_fetch_them",
    ("docs/architecture.md", "text", "flake8_weakglobals/ "): "test_readme::test_the_architecture_tree_is_the_packages_layers",
}


def test_the_readme_starts_with_exactly_two_commands() -> None:
    (first_language, first), (second_language, second) = README_BLOCKS[:2]
    assert README.index("```") < README.index("\n## ") and README.split("```")[4].count("\n## ") > 0
    assert first_language == second_language == "bash" and first.count("\n") == second.count("\n") == 1
    assert first.startswith("pip install -e . && flake8 --select WG examples/pinning.py; python -m fixes.apply --diff")
    assert second.startswith("pip install torch==2.13.0 && pip install -e '.[test]' -c constraints-test.txt && python -m pytest")


def test_ci_runs_the_readme_test_command() -> None:
    assert README_BLOCKS[1][1].strip() in (REPO / ".ci" / "run").read_text().splitlines()


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


def shell(command: str, cwd: Path, **environment: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, shell=True, capture_output=True, text=True, cwd=cwd, env={**ENVIRONMENT, **environment})


def block(page: str, language: str, start: str) -> str:
    """The one block of ``page`` in ``language`` that starts with ``start``: a second such block fails the test
    that runs the first, rather than going unrun under the same row of ``RUNS``."""
    (text,) = [text for kind, text in page_blocks(REPO / page) if kind == language and text.startswith(start)]
    return text


def write(root: Path, files: dict[str, str]) -> Path:
    """A scratch project: each relative path with its text."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_every_block_is_run_by_exactly_one_test() -> None:
    """The inventory: every fenced block of every page matches one row of ``RUNS``, every row matches a block
    (a row left by a deleted block would claim the next one that happens to start alike), and every test a row
    names is a function of that test module (read with ``ast``: importing another test module here would
    bypass pytest's own import of it)."""
    claimed: dict[tuple[str, str, str], int] = dict.fromkeys(RUNS, 0)
    wrong = []
    for page in PAGES:
        name = page.relative_to(REPO).as_posix()
        for language, text in page_blocks(page):
            rows = [row for row in RUNS if row[0] in ("*", name) and row[1] == language and text.startswith(row[2])]
            claimed.update((row, claimed[row] + 1) for row in rows)
            if len(rows) != 1:
                wrong.append(f"{name}: ```{language} block {text.splitlines()[0][:60]!r} is claimed by {[RUNS[row] for row in rows]}")
    assert not wrong, "\n".join(wrong)
    assert [row for row, count in claimed.items() if not count] == []
    for test in sorted(set(RUNS.values())):
        module, _, function = test.partition("::")
        tree = ast.parse((REPO / "tests" / f"{module}.py").read_text())
        assert function in {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}, f"{test}: no such test"


def test_the_first_command_shows_the_findings_then_the_fix() -> None:
    """Run where a new user runs it, in the checkout (``--diff`` writes nothing): the codemod's whole-project
    checks then see what the user's run sees, this repository's test programs included."""
    demo = README_BLOCKS[0][1].strip().split(" && ", 1)[1]  # the install itself is what CI's set-up did
    done = shell(demo, REPO, WEAKGLOBALS_NO_CACHE="1")
    assert done.stdout.count(": WG001 module-level dict") == 2
    assert done.stdout.index("WG001") < done.stdout.index("+module_names = _WeakIdMap()")


@pytest.mark.parametrize(("page", "block"), CONSOLE, ids=[f"{page.name}:{block.splitlines()[0][2:42]}" for page, block in CONSOLE])
def test_console_blocks_show_what_the_commands_print(page: Path, block: str, tmp_path: Path) -> None:
    cwd = copy_examples(tmp_path)
    for command, *expected in (part.split("\n") for part in re.split(r"^\$ ", block, flags=re.MULTILINE)[1:]):
        done = shell(command, cwd)
        shown = [line.rstrip() for line in expected]
        while shown and not shown[-1]:  # the blank line that ends a command's part of the block
            shown.pop()
        assert [line.rstrip() for line in done.stdout.splitlines()] == shown, command


def test_pre_commit_snippets_are_valid_configs(tmp_path: Path) -> None:
    found = {page.relative_to(REPO).as_posix(): [text for language, text in page_blocks(page) if language == "yaml" and text.startswith("repos:")]
             for page in PAGES}
    assert {page: len(texts) for page, texts in found.items() if texts} == {"README.md": 2, "docs/pre-commit.md": 5}
    snippets = [text for texts in found.values() for text in texts]  # the README's first two: our two hooks
    for snippet in snippets:
        (tmp_path / ".pre-commit-config.yaml").write_text(snippet)
        done = subprocess.run([sys.executable, "-m", "pre_commit", "validate-config", ".pre-commit-config.yaml"],
                              capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
    manifest = (REPO / ".pre-commit-hooks.yaml").read_text()
    hooks = re.findall(r"- id: (weakglobals[\w-]*)\n", snippets[1])  # the published form names the manifest's hooks
    assert hooks == ["weakglobals", "weakglobals-fix"] and all(f"- id: {hook}\n" in manifest for hook in hooks)


def test_configuration_snippets_are_accepted() -> None:
    import configparser

    from flake8_weakglobals.frontends.config import tomllib

    (toml,) = [text for language, text in BLOCKS if language == "toml" and "[tool.weakglobals]" in text]
    settings_from_table(tomllib.loads(toml)["tool"]["weakglobals"], Path("pyproject.toml"))
    (ini,) = [text for language, text in BLOCKS if language == "ini"]
    parser = configparser.ConfigParser()
    parser.read_string(ini)
    assert parse_extra_types(parser["flake8"]["weakglobals-extra-types"].split(","), "README")


@pytest.mark.parametrize("script", sorted({script for page in PAGES for script in re.findall(r"`python (benchmarks/\w+\.py)`", page.read_text())}))
def test_benchmark_commands_run(script: str) -> None:
    done = subprocess.run([sys.executable, script, "--quick"], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert "|---|" in done.stdout


def test_the_census_command_reports_a_projects_pin(tmp_path: Path) -> None:
    """docs/census.md's command as written (its ``tests/`` the project's), in a project of one package that pins
    (conftest's ``PINNING``) and one test that fills it; then the mode its comment names, which fails that test."""
    command = block("docs/census.md", "bash", "python -m pytest --weakglobals")
    test = "from torch import nn\n\nfrom pinpkg import pins\n\n\ndef test_add():\n    pins.add(nn.Linear(2, 2))\n"
    write(tmp_path, {"pinpkg/__init__.py": "", "pinpkg/pins.py": PINNING, "tests/test_pins.py": test})
    done = shell(command, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    report = done.stdout.split(" weakglobals census =", 1)[1].splitlines()
    assert report[1].startswith("weakglobals census of pinpkg: 1 container holds 1 object created by 1 test, 24 B")
    assert report[2].split() == ["24", "B", "pinpkg.pins.names:", "1", "object;", "confirms", "WG001", "at", "pinpkg/pins.py:3"]
    (other,) = re.findall(r"# or (--weakglobals=\w+)$", command.strip())
    failed = shell(command.partition("#")[0].replace("--weakglobals=report", other), tmp_path)
    assert failed.returncode == 1 and "ERROR tests/test_pins.py::test_add" in failed.stdout, failed.stdout


#: A project for each transcript of docs/census.md, as its text describes it: the transcript's own command, or
#: (where it shows none) the page's ``python -m pytest --weakglobals=report``, with the files it is run on.
CENSUS_PROJECTS: dict[str, tuple[str, dict[str, str]]] = {
    "test_replace_blocks.py": ("", {  # DeepSpeed 0.19.6's name extraction on 16 blocks of 4 MiB, then each replaced
        "test_replace_blocks.py": "import deepspeed.utils.debug as debug\nfrom torch import nn\n\n\n"
                                  "def test_replace_every_block():\n"
                                  "    model = nn.Sequential(*(nn.Linear(1024, 1024, bias=False) for _ in range(16)))\n"
                                  "    debug.debug_extract_module_and_param_names(model)\n"
                                  "    for index in range(len(model)):\n"
                                  "        setattr(model, str(index), nn.Linear(1024, 1024, bias=False))\n",
    }),
    "pinpkg.store.BY_NAME": ("python -m pytest --weakglobals=report", {  # CACHE[module] = name, BY_NAME[name] = obj
        "pinpkg/__init__.py": "",
        "pinpkg/store.py": "from torch import nn\nCACHE = {}\nBY_NAME = {}\n\n\n"
                           "def cache(module: nn.Module, name: str) -> None:\n    CACHE[module] = name\n\n\n"
                           "def register(name, obj):\n    BY_NAME[name] = obj\n",
        "test_store.py": "from torch import nn\n\nfrom pinpkg import store\n\n\ndef test_keep():\n"
                         "    module = nn.Linear(8, 8)\n    store.cache(module, 'first')\n    store.register('first', module)\n",
    }),
    "not censused: test_broken.py": ("python -m pytest --weakglobals=report", {  # a test module that fails to import
        "pinpkg/__init__.py": "", "pinpkg/pins.py": PINNING, "test_broken.py": "import no_such_module_anywhere\n",
    }),
}
CENSUS_TRANSCRIPTS = [text for language, text in page_blocks(REPO / "docs" / "census.md") if language == "text"]


def comparable(line: str) -> str:
    """A report line without what changes from run to run: addresses and times."""
    return re.sub(r"[\d.]+(?= m?s\b)", "N", re.sub(r"0x[0-9a-f]+", "0x…", line.rstrip()))


@pytest.mark.parametrize("transcript", CENSUS_TRANSCRIPTS, ids=lambda text: next((key for key in CENSUS_PROJECTS if key in text), "?"))
def test_census_transcripts_are_what_the_census_prints(transcript: str, tmp_path: Path) -> None:
    """Each ``text`` transcript of docs/census.md, run in the project ``CENSUS_PROJECTS`` builds for it: the
    report from its separator on is the transcript's lines (a transcript may stop before the timing line; a
    command's ``...`` is pytest's own output, before the report)."""
    ((command, files),) = [project for key, project in CENSUS_PROJECTS.items() if key in transcript]
    shown = transcript.splitlines()
    if shown[0].startswith("$ "):
        command, shown = shown[0][2:], shown[shown.index("...") + 1 :]
    done = shell(command, write(tmp_path, files))
    printed = done.stdout.splitlines()
    start = next(index for index, line in enumerate(printed) if line.startswith("=") and " weakglobals census " in line)
    report = [comparable(line) for line in printed[start:]]
    assert report[: len(shown)] == [comparable(line) for line in shown], done.stdout
    rest = report[len(shown) :]
    assert " censused in " in shown[-1] or (rest and " censused in " in rest[0]), "the transcript stops inside the report"


@pytest.mark.parametrize(("files", "fixed"), [
    ({"tools/__init__.py": "", "tools/x.py": "#!/usr/bin/env python\n" + PINNING}, "tools/x.py"),  # a script inside a package
    ({"tests/test_x.py": PINNING}, "tests/test_x.py"),  # a test file in a directory without __init__.py
], ids=["script-in-package", "test-file"])
def test_the_import_that_tries_both_ways_is_what_the_codemod_writes(files: dict[str, str], fixed: str, tmp_path: Path) -> None:
    """docs/codemod.md's ``try``/``except ImportError`` import is what ``python -m fixes.apply --runtime vendor``
    writes, character for character, into each kind of file the page says is run both ways (its table's last
    two rows)."""
    shim = block("docs/codemod.md", "python", "try:")
    done = shell(f"python -m fixes.apply --runtime vendor {Path(fixed).parent}", write(tmp_path, files))
    assert done.returncode == 0, done.stdout + done.stderr
    head = "from torch import nn\n"
    assert (tmp_path / fixed).read_text() == files[fixed].replace(head, head + shim, 1).replace("names = {}", "names = _WeakIdMap()")


def test_the_inline_blocks_first_lines_are_what_the_codemod_writes(tmp_path: Path) -> None:
    """docs/codemod.md's two marker lines open the block ``python -m fixes.apply`` writes into a fixed module, as shown."""
    shown = block("docs/codemod.md", "text", "# --- flake8-weakglobals ")
    done = shell("python -m fixes.apply pins.py", write(tmp_path, {"pins.py": PINNING}))
    assert done.returncode == 0, done.stdout + done.stderr
    assert shown in (tmp_path / "pins.py").read_text()


def test_the_runtime_pages_session_prints_what_it_shows() -> None:
    """docs/runtime.md's ``pycon`` session, run by doctest as written (its first line imports what it uses): each
    ``>>>`` line runs, and what it prints, here the exception's type and message, is what the page shows."""
    import doctest

    session = block("docs/runtime.md", "pycon", ">>> ")
    test = doctest.DocTestParser().get_doctest(session, {}, "docs/runtime.md", "docs/runtime.md", 0)
    report: list[str] = []
    failed, attempted = doctest.DocTestRunner().run(test, out=report.append)
    assert (failed, attempted) == (0, session.count(">>> ")), "".join(report)


def test_the_ecosystem_table_derives_from_a_site(tmp_path: Path) -> None:
    """docs/configuration.md's command with a real ``SITE`` and ``PACKAGE``: a scratch site holding one package,
    unpacked as a wheel would be (its ``dist-info`` says the version), whose class derives from ``nn.Module``
    and is re-exported by its ``__init__``. It writes to a scratch file instead of over the shipped table."""
    command = block("docs/configuration.md", "bash", "python -m flake8_weakglobals.analysis.derive_ecosystem ")
    shipped = "flake8_weakglobals/analysis/ecosystem_classes.json"
    assert command.strip().endswith(f"SITE PACKAGE... > {shipped}")
    write(tmp_path, {
        "site/tinyeco/__init__.py": "from .models import TinyModel\n",
        "site/tinyeco/models.py": "from torch import nn\n\n\nclass TinyModel(nn.Module):\n    pass\n",
        "site/tinyeco-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinyeco\nVersion: 1.0\n",
    })
    done = shell(command.replace("SITE PACKAGE...", "site tinyeco").replace(shipped, "derived.json"), tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "derived.json").read_text()) == {
        "derived_from": {"tinyeco": "tinyeco==1.0"},
        "kinds": {"tinyeco.TinyModel": "module", "tinyeco.models.TinyModel": "module"},
        "holders": {},
        "keepers": {},
    }


def test_the_sarif_workflows_steps_run(tmp_path: Path) -> None:
    """docs/configuration.md's workflow, marked there as the form for once the project is published. Its
    ``weakglobals`` step runs as written in a checkout of ``examples/`` and writes a SARIF log of both findings.
    Its install step names the unpublished home repository, so it runs with this checkout's HEAD in its place
    (``git+file://localhost/...``: pip's URL check wants a host), as a dry run without dependencies or build
    isolation, which would fetch from the package index: it must resolve to this package."""
    import yaml  # pre-commit's own dependency

    require(shutil.which("git") is not None and (REPO / ".git").exists(), "git and a git checkout of this repository")
    text = block("docs/configuration.md", "yaml", "name: weakglobals")
    page = (REPO / "docs" / "configuration.md").read_text()
    lead = " ".join(page.split(f"```yaml\n{text}")[0].rstrip().rsplit("\n\n", 1)[1].split())  # the paragraph that leads to it
    assert "for once the project is published at its home repository (it is not yet" in lead, lead
    (job,) = yaml.safe_load(text)["jobs"].values()
    install, lint = [step["run"] for step in job["steps"] if "run" in step]

    cwd = copy_examples(tmp_path)
    done = shell(lint, cwd)
    assert done.returncode == 0, done.stderr
    log = json.loads((cwd / "weakglobals.sarif").read_text())
    assert isinstance(log, dict) and log["version"] == "2.1.0", log
    (run,) = log["runs"]
    assert [(result["ruleId"], result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for result in run["results"]] == [
        ("WG001", "examples/pinning.py")] * 2

    home = "git+https://github.com/flake8-weakglobals/flake8-weakglobals@main"
    assert home in install
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=REPO, check=True).stdout.strip()
    here = install.replace(home, f"git+file://localhost{REPO.resolve()}@{head}").replace("pip install", "pip install --dry-run --no-deps --no-build-isolation", 1)
    done = shell(here, tmp_path, PIP_DISABLE_PIP_VERSION_CHECK="1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Would install flake8-weakglobals-" in done.stdout, done.stdout


def test_the_sweep_rescore_without_the_trees_says_how_to_fetch_them(tmp_path: Path) -> None:
    """docs/accuracy.md's rescore, with ``--root`` an empty directory in place of ``/work/sweep2``: the 24 trees
    are fetched from GitHub and the package index, which this machine cannot reach. It must still exit 0 (it is a
    report), note every repository of the sweep as skipped, print its table, and list each one to fetch."""
    command = block("docs/accuracy.md", "bash", "python benchmarks/sweep.py ")
    assert " --root /work/sweep2" in command
    done = shell(command.replace(" --root /work/sweep2", f" --root {tmp_path}"), REPO)
    assert done.returncode == 0, done.stderr
    repositories = [entry["repo"] for entry in json.loads((REPO / "benchmarks" / "sweep2" / "repositories.json").read_text())]
    assert len(repositories) == 24
    for repository in repositories:
        assert f"note: {repository} is not under {tmp_path / repository.replace('/', '+')}: skipped\n" in done.stdout
        assert re.search(rf"^  {re.escape(repository)} +\S", done.stdout, flags=re.MULTILINE), repository
    assert "| **all 0 run** | 0 |" in done.stdout and f"To reproduce, unpack each repository at its commit into {tmp_path}/" in done.stdout


def test_the_architecture_tree_is_the_packages_layers() -> None:
    """docs/architecture.md's tree is the package: a row for each sub-package of ``flake8_weakglobals`` (highest
    layer first) and for ``fixes``, each numbered as ``tests/test_layers.py``'s ``LAYERS`` ranks it (lowest 1),
    and the runtime's row names its parts, the modules of ``flake8_weakglobals/runtime/``."""
    from test_layers import LAYERS

    tree = block("docs/architecture.md", "text", "flake8_weakglobals/ ")
    rows = re.findall(r"^(├── |└── |)(\w+)/ +(\d+) +(.+)$", tree, flags=re.MULTILINE)
    drawn = {("flake8_weakglobals." if branch else "") + folder: int(layer) for branch, folder, layer, _ in rows}
    ranked = {prefix: rank for rank, prefixes in enumerate(LAYERS, start=1) for prefix in prefixes}
    assert drawn == ranked
    inside = [int(layer) for branch, _, layer, _ in rows if branch]
    assert inside == sorted(inside, reverse=True)
    packages = {f"flake8_weakglobals.{path.parent.name}" for path in (REPO / "flake8_weakglobals").glob("*/__init__.py")}
    assert packages | {"fixes"} == set(drawn)
    (runtime,) = [what for _, folder, _, what in rows if folder == "runtime"]
    parts = {path.stem for path in (REPO / "flake8_weakglobals" / "runtime").glob("*.py")} - {"__init__"}
    assert set(runtime.split(":")[0].split(", ")) == parts


def github_anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives a page's headings (outside code blocks): the text lower-cased, without code
    marks and punctuation, spaces made hyphens; a repeated heading gets ``-1``, ``-2``, ..."""
    anchors: set[str] = set()
    for heading in re.findall(r"^#{1,6} (.+)$", re.sub(r"^```.*?^```", "", markdown, flags=re.M | re.S), flags=re.M):
        anchor = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        unique, count = anchor, 0
        while unique in anchors:
            count += 1
            unique = f"{anchor}-{count}"
        anchors.add(unique)
    return anchors


def relative_links(markdown: str) -> list[str]:
    """Every link target of a page that is not a URL, outside code blocks and code spans."""
    prose = re.sub(r"`[^`\n]*`", "", re.sub(r"^```.*?^```", "", markdown, flags=re.M | re.S))
    return [target for target in re.findall(r"\]\(([^)\s]+)\)", prose) if not re.match(r"[a-z]+:", target)]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(REPO).as_posix())
def test_every_relative_link_leads_to_a_file_and_a_heading(page: Path) -> None:
    root, broken = REPO.resolve(), []
    for target in relative_links(page.read_text()):
        path, _, anchor = target.partition("#")
        linked = (page.parent / path if path else page).resolve()
        if not linked.exists() or root not in linked.parents:
            broken.append(f"{target}: no such file in the repository")
        elif anchor and (linked.suffix != ".md" or anchor not in github_anchors(linked.read_text())):
            broken.append(f"{target}: no heading #{anchor} in {linked.relative_to(root)}")
    assert not broken, broken


def test_the_readme_links_to_every_docs_page() -> None:
    linked = {(REPO / target.partition("#")[0]).resolve() for target in relative_links(README)}
    unlinked = [page.name for page in PAGES[1:] if page.resolve() not in linked]
    assert not unlinked, unlinked
