"""What the linter and the codemod cost, counted, not timed: a rescan per question shows in counts long
before it shows in seconds, and counts do not depend on the machine (``tests/cost_counter.py`` counts one
``fixes.apply --check`` run in a fresh interpreter).

Each module is parsed, summarised and indexed a bounded number of times per run, so the nodes visited stay
within a small multiple of the tree's own nodes, and a project twice as large costs twice as much, not
four times: nothing is quadratic in containers times modules.
"""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import REPO, installed_package

#: Nodes visited per node of the tree, at most. With the parents of a module indexed again along each
#: asked line, and each module read again for every container of another, torch's ``ao/quantization``
#: took 38 visits per node.
VISITS_PER_NODE = 3.0


def counted(tree: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, str(REPO / "tests" / "cost_counter.py"), str(tree)], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def nodes_in(tree: Path) -> int:
    return sum(sum(1 for _ in ast.walk(ast.parse(path.read_text()))) for path in tree.rglob("*.py"))


def test_each_module_is_summarised_and_indexed_once_and_visited_a_bounded_number_of_times() -> None:
    """The installed torch 2.13.0's ``ao/quantization``: real code with many questions about ``self``
    attributes and a module word (``utils``) that most of torch's files spell."""
    tree = installed_package("torch") / "ao" / "quantization"
    counts, nodes = counted(tree), nodes_in(tree)
    assert counts["summaries"] and counts["most_summaries_of_one_module"] == 1, counts
    assert counts["indexes"] and counts["most_indexes_of_one_tree"] == 1, counts
    # A module is parsed by the analysis (or by the index, whose tree the analysis then takes), once more
    # by the index if it asks after the analysis dropped the tree, and once by the codemod's look at the
    # modules that may use a container it would rewrite: never once per container or per question.
    assert counts["most_parses_of_one_text"] <= 3, counts
    assert counts["visits"] <= VISITS_PER_NODE * nodes, f"{counts['visits']:,} nodes visited for a tree of {nodes:,}"


STATE = """from torch import nn

names = {{}}


def add(module: nn.Module) -> None:
    names[module] = {index}
"""
USER = """from . import state


def snapshot(obj: object) -> dict:
    return dict(vars(obj))


def known(module: object) -> bool:
    return module in state.names
"""


def project_of(packages: int, root: Path) -> Path:
    """``packages`` packages, each with a container the codemod fixes (``state.names``) and a module that
    reads it and spells ``vars``: every container's check looks at every module that spells ``state``."""
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'many'\n")
    for index in range(packages):
        package = root / f"package_{index}"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "state.py").write_text(STATE.format(index=index))
        (package / "user.py").write_text(USER)
    return root


def test_a_project_twice_as_large_costs_twice_as_much(tmp_path: Path) -> None:
    once = counted(project_of(6, tmp_path / "once"))
    twice = counted(project_of(12, tmp_path / "twice"))
    assert once["status"] == twice["status"] == 1  # each container would be fixed
    # name_lookups: a search of the project per container and per filling function, never one per
    # container for every module that spells the function's name (500 such modules took 10 minutes)
    for measure in ("visits", "parses", "summaries", "indexes", "name_lookups"):
        assert twice[measure] <= 2.2 * once[measure], f"{measure}: {once[measure]:,} for 6 packages, {twice[measure]:,} for 12"


CHAIN = {
    "__init__.py": "",
    "a_blocks.py": "from torch import nn\n\n\nclass Block(nn.Module):\n    pass\n",
    "b_layers.py": "from pkg.a_blocks import Block\n\n\nclass Layer(Block):\n    pass\n",
    "c_model.py": (
        "import torch\n\nfrom pkg.b_layers import Layer\n\nseen = {}  # noqa: WG001\n\n\n"
        "def add(layer: Layer) -> None:\n    seen[layer] = torch.ones(1)\n"
    ),
}


def test_a_module_imported_by_one_that_sorts_after_it_is_parsed_once(tmp_path: Path) -> None:
    """``c_model`` asks about ``Layer`` (``b_layers``), whose base ``Block`` is in ``a_blocks``: in path
    order each of those two was checked, and its tree dropped, before the question came, so the index
    parsed it again. A run checks importers first (``import_order``): the index's parse is the one the
    check then uses."""
    package = tmp_path / "pkg"
    package.mkdir()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'chain'\n")
    for name, text in CHAIN.items():
        (package / name).write_text(text)
    counts = counted(package)
    assert counts["summaries"] >= 2, counts  # the questions were asked
    assert counts["most_parses_of_one_text"] == 1, counts


DEBUG_STATE = """from torch import nn

NAMES = {}


def initialize(model: nn.Module) -> None:
    for name, module in model.named_modules():
        NAMES[module] = name
"""
CALLER = """from torch import nn

from pkg import debug

MODEL = nn.Linear(2, 2)
debug.initialize(MODEL)
"""
BYSTANDER = """import logging

logger = logging.getLogger(__name__)


def initialize(debug: bool = False) -> None:
    logger.debug("initialize %s", debug)
"""


def test_modules_that_only_share_a_word_with_the_container_are_not_walked(tmp_path: Path) -> None:
    """DeepSpeed's ``utils/debug.py`` shape: the container's module is ``pkg.debug`` and its filling
    function ``initialize``, words that many modules spell (``logger.debug``, their own ``initialize``).
    Only a module that can name ``pkg.debug`` (by an import of it, of a package above it, a star, or a
    string spelling it) is walked whole for references: over torch, DeepSpeed and transformers, the
    other modules cost the check a second."""
    package = tmp_path / "pkg"
    package.mkdir()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'words'\n")
    (package / "__init__.py").write_text("")
    (package / "debug.py").write_text(DEBUG_STATE)
    (package / "main.py").write_text(CALLER)
    for index in range(8):
        (package / f"bystander_{index}.py").write_text(BYSTANDER)
    counts = counted(package)
    assert counts["status"] == 1, counts  # the container would be fixed: its questions were all asked
    assert counts["walked_for_references"] == ["main.py"], counts
