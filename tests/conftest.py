"""Shared paths and helpers: fixtures are files, expectations live inline in them."""
from __future__ import annotations

import ast
import collections
import os
import re
from pathlib import Path

import pytest
from hypothesis import settings

#: Every property test draws the same examples on every run and machine, with no example database to
#: replay a failure of another run from: a suite that fails one run in a few tells a new user it is broken.
#: A test's own ``@settings`` still sets its sizes; this profile is what it inherits.
settings.register_profile("deterministic", derandomize=True, database=None)
settings.load_profile("deterministic")

HERE = Path(__file__).parent
REPO = HERE.parent
LINT_FIXTURES = HERE / "fixtures" / "lint"
EXPECT = re.compile(r"# expect: (WG\d{3}(?:, WG\d{3})*)")
IN_CI = os.environ.get("CI") == "true"

#: The smallest pinning module: a global dict filled with ``nn.Module`` keys (WG001, fixable).
PINNING = "from torch import nn\n\nnames = {}\n\n\ndef add(module: nn.Module) -> None:\n    names[module] = 1\n"


def fixed(text: str, newline: str = "\n", runtime: str = "flake8_weakglobals.runtime") -> str:
    """What the codemod makes of a file built around PINNING, importing the runtime from ``runtime``."""
    head = f"from torch import nn{newline}"
    return text.replace(head, f"{head}from {runtime} import WeakIdMap as _WeakIdMap{newline}", 1).replace("names = {}", "names = _WeakIdMap()")


def expected_findings(path: Path) -> set[tuple[int, str]]:
    """``(line, code)`` for every ``# expect: WG00x`` comment in a fixture."""
    found = set()
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            found.update((number, code) for code in match.group(1).split(", "))
    return found


def require(condition: bool, reason: str) -> None:
    """Skip on a developer machine that lacks something; in CI nothing the issues ask for may be skipped."""
    if not condition:
        if IN_CI:
            pytest.fail(f"required in CI: {reason}")
        pytest.skip(reason)


@pytest.fixture(scope="session")
def deepspeed_0198(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """DeepSpeed 0.19.8's source tree (its hand-fixed debug.py), from the sdist ``.ci/run`` downloads.

    Looks in ``$WEAKGLOBALS_SDISTS`` or ``.cache/sdists``; downloads with ``pip download`` when absent.
    """
    import subprocess
    import sys
    import tarfile

    cache = Path(os.environ.get("WEAKGLOBALS_SDISTS", REPO / ".cache" / "sdists"))
    archive = cache / "deepspeed-0.19.8.tar.gz"
    if not archive.exists():
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "deepspeed==0.19.8", "-d", str(cache)],
            capture_output=True,
        )
    require(archive.exists(), "the deepspeed 0.19.8 sdist (pip download deepspeed==0.19.8)")
    target = tmp_path_factory.mktemp("deepspeed-0.19.8")
    with tarfile.open(archive) as tar:
        members = [member for member in tar.getmembers() if member.name.startswith("deepspeed-0.19.8/deepspeed/")]
        tar.extractall(target, members=members)
    return target / "deepspeed-0.19.8"


def installed_package(name: str) -> Path:
    """Where an installed package's source lives, without importing it (deepspeed's import is slow)."""
    import importlib.util

    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.submodule_search_locations, f"{name} is not installed"
    return Path(next(iter(spec.submodule_search_locations)))


def doc_pages() -> list[Path]:
    """The documentation: the README (the landing page) first, then every page under ``docs/``."""
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def page_blocks(page: Path) -> list[tuple[str, str]]:
    """One page's fenced code blocks, as ``(language, text)`` in order."""
    return re.findall(r"^```(\w*)\n(.*?)^```", page.read_text(), flags=re.MULTILINE | re.DOTALL)


def readme_blocks() -> list[tuple[str, str]]:
    """The fenced code blocks of the README and of every ``docs/`` page, as ``(language, text)``: the README's
    in order, then each page's (``doc_pages``)."""
    return [block for page in doc_pages() for block in page_blocks(page)]


def readme_block(starting_with: str) -> str:
    """The text of the one block, in the README or a ``docs/`` page, that starts with ``starting_with`` (output
    the documentation shows)."""
    matches = [text for _, text in readme_blocks() if text.startswith(starting_with)]
    assert len(matches) == 1, f"README and docs/ blocks starting with {starting_with!r}: {len(matches)}"
    return matches[0]


def pyflakes_messages(text: str) -> collections.Counter[str]:
    """pyflakes' messages without line numbers: an import moved a line down is not a new message."""
    from pyflakes.checker import Checker

    messages = Checker(ast.parse(text)).messages
    return collections.Counter(re.sub(r"\bline \d+", "line N", message.message % message.message_args) for message in messages)
