"""Base classes from outside the project (accuracy class 6), through the real command line: a distribution
installed where the linter runs is read with the import system's finders and never imported; one that is
not installed is known from the shipped table; ``extra-module-bases`` adds more. A broken, compiled-only,
unreadable or huge distribution never crashes a check, and a changed one is read again."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from flake8_weakglobals.analysis.derive_ecosystem import derive
from flake8_weakglobals.analysis.framework_types import ECOSYSTEM_TABLE, MODULE, Vocabulary

LINT = [sys.executable, "-m", "flake8_weakglobals.frontends.command", "--isolated"]

USER = '''\
import functools

import torch
from ecolib.layers import EcoModule
from ecolib.broken import Broken
from ecolib.compiled import Compiled


class Rotary(EcoModule):  # a number cached: only the base makes it a pin
    @functools.lru_cache(maxsize=None)
    def freqs(self, n: int) -> int:
        return n


class FromBroken(Broken):  # unknown bases; a number cached, so only the base could make it a pin
    @functools.lru_cache(maxsize=None)
    def freqs(self, n: int) -> int:
        return n


class FromCompiled(Compiled):  # unknown bases; a number cached, so only the base could make it a pin
    @functools.lru_cache(maxsize=None)
    def freqs(self, n: int) -> int:
        return n
'''


@pytest.fixture()
def installed(tmp_path: Path) -> tuple[Path, Path]:
    """A distribution ``ecolib`` in its own site directory, and a user project beside it. Importing ecolib
    would fail: its ``__init__`` raises, so a check that imported it could not find its module classes."""
    site = tmp_path / "site"
    package = site / "ecolib"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("raise RuntimeError('ecolib must never be imported by a linter')\n")
    (package / "layers.py").write_text("from torch import nn\n\n\nclass EcoModule(nn.Module):\n    pass\n")
    (package / "broken.py").write_text("class Broken(:\n")
    (package / "compiled.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF not really")
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("")
    (project / "model.py").write_text(USER)
    return site, project


def run(project: Path, site: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site), "NO_COLOR": "1", "WEAKGLOBALS_CACHE_DIR": str(project / ".cache")}
    return subprocess.run([*LINT, *arguments, "model.py"], cwd=project, env=env, capture_output=True, text=True)


def test_an_installed_distribution_is_read_and_never_imported(installed: tuple[Path, Path]) -> None:
    site, project = installed
    done = run(project, site)
    assert done.returncode == 1 and done.stderr == "", done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(":")[1] for line in lines] == ["10"], lines  # only Rotary: broken and compiled are unknown
    assert "`self` is a `Rotary`, a subclass of `EcoModule`" in lines[0]


def test_a_changed_installed_module_is_read_again(installed: tuple[Path, Path]) -> None:
    site, project = installed
    first = run(project, site)
    assert (first.returncode, first.stderr, first.stdout.count("WG006")) == (1, "", 1), first.stderr
    layers = site / "ecolib" / "layers.py"
    layers.write_text("class EcoModule:\n    '''no longer a module'''\n")
    again = run(project, site)
    assert (again.returncode, again.stdout, again.stderr) == (0, "", ""), "a stale summary was used"


def test_an_unreadable_or_huge_installed_module_is_unknown(installed: tuple[Path, Path]) -> None:
    site, project = installed
    layers = site / "ecolib" / "layers.py"
    layers.write_text("from torch import nn\n\n\nclass EcoModule(nn.Module):\n    pass\n" + "#" * 2_100_000 + "\n")
    done = run(project, site)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), done.stderr
    # Unreadable for every user, root included (whom a mode of 0 does not stop): a regular file whose every
    # read fails with EIO, at offset 0 of the reading process's own memory.
    layers.unlink()
    layers.symlink_to("/proc/self/mem")
    assert layers.is_file()
    done = run(project, site)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), done.stderr


def test_extra_module_bases_name_a_base_nothing_else_knows(installed: tuple[Path, Path]) -> None:
    site, project = installed
    (project / "model.py").write_text(USER.replace("ecolib.layers", "notinstalled.layers"))
    unknown = run(project, site)
    assert (unknown.returncode, unknown.stdout, unknown.stderr) == (0, "", ""), unknown.stderr
    done = run(project, site, "--extra-module-bases", "notinstalled.layers.EcoModule")
    assert (done.returncode, done.stderr, done.stdout.count("WG006")) == (1, "", 1), done.stdout + done.stderr


def test_the_shipped_table_knows_the_ecosystem_bases_and_where_it_came_from() -> None:
    table = json.loads(ECOSYSTEM_TABLE.read_text(encoding="utf-8"))
    assert table["derived_from"] and all("==" in version for version in table["derived_from"].values())
    vocabulary = Vocabulary()
    for name in (
        "lightning.LightningModule", "pytorch_lightning.LightningModule", "lightning.pytorch.LightningModule",
        "transformers.PreTrainedModel", "transformers.modeling_utils.PreTrainedModel", "diffusers.ModelMixin",
        "megatron.core.transformer.module.MegatronModule", "torchmetrics.Metric",
        "megatron.core.models.common.embeddings.rotary_pos_embedding.RotaryEmbedding",
    ):
        assert vocabulary.kind_of_type(name) == MODULE, name
    assert "holds nn.Module objects" in (vocabulary.holding("transformers.Trainer") or "")
    assert "holds `Trainer` objects" in (vocabulary.holding("lightning.LightningDataModule") or "")
    assert Vocabulary(with_ecosystem=False).kind_of_type("transformers.PreTrainedModel") is None


def _site(tmp_path: Path, package: str, init: str, module: str, text: str) -> Path:
    """A scratch site holding one package, unpacked as a wheel would be: its ``__init__`` and one module."""
    site = tmp_path / "site"
    (site / package).mkdir(parents=True)
    (site / package / "__init__.py").write_text(init)
    (site / package / module).write_text(text)
    return site


def test_the_table_records_holders_at_the_end_of_long_chains(tmp_path: Path) -> None:
    """Lightning's ``LightningDataModule`` holds the ``Trainer``, which holds its connector, which holds the
    strategy, which holds the model: four steps, more than a check walks in a user's project. The table is
    derived once, so it records every chain, however long."""
    site = _site(
        tmp_path, "chain", "from .parts import DataModule, Trainer\n", "parts.py",
        "from typing import Optional\n\nfrom torch import nn\n\n\n"
        "class Strategy:\n    def __init__(self, model: nn.Module) -> None:\n        self.model = model\n\n\n"
        "class Connector:\n    def __init__(self) -> None:\n        self.strategy: Optional[Strategy] = None\n\n\n"
        "class Trainer:\n    def __init__(self) -> None:\n        self.connector = Connector()\n\n\n"
        "class DataModule:\n    def __init__(self) -> None:\n        self.trainer: Optional[\"Trainer\"] = None\n"
    )
    holders = derive(site, ["chain"])["holders"]
    assert sorted(holders) == ["chain.DataModule", "chain.Trainer", "chain.parts.DataModule", "chain.parts.Trainer"]
    assert holders["chain.DataModule"].startswith("`DataModule` holds `Trainer` objects (`self.trainer`")


def test_a_module_deriving_from_an_ecosystem_base_is_reported_without_the_distribution(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "model.py").write_text(
        "import functools\nfrom transformers import PreTrainedModel\n\n\nclass Model(PreTrainedModel):\n"
        "    @functools.lru_cache(maxsize=32)\n    def rope(self, n: int):\n        return n\n"
    )
    done = subprocess.run([*LINT, "model.py"], cwd=tmp_path, capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (1, ""), done.stderr
    assert [line.split(" ", 1)[1] for line in done.stdout.splitlines()][0].startswith("WG006 `@functools.lru_cache` on `Model.rope`")
    assert len(done.stdout.splitlines()) == 1, done.stdout


def test_the_table_records_what_a_packages_singleton_keeps_of_its_arguments(tmp_path: Path) -> None:
    """A package's singleton whose method appends what it is handed to the instance's own list keeps it for
    the process (bitsandbytes' ``GlobalOptimManager.register_module_override``); recorded under the name
    the package defines it at and the name its ``__init__`` exports it as. A plain class's method, and a
    singleton's method that keeps only what it computes (a class's name), are not recorded."""
    site = _site(
        tmp_path, "keeplib", "from .manager import Manager, Plain\n", "manager.py",
        "class Manager:\n    _instance = None\n\n"
        "    def initialize(self):\n        self.overrides = []\n        self.names = []\n\n"
        "    @classmethod\n    def get_instance(cls):\n        if cls._instance is None:\n"
        "            cls._instance = cls.__new__(cls)\n            cls._instance.initialize()\n"
        "        return cls._instance\n\n"
        "    def register(self, module, config):\n        self.overrides.append((module, config))\n\n"
        "    def name(self, module):\n        self.names.append(type(module).__name__)\n\n\n"
        "class Plain:\n    def __init__(self):\n        self.seen = []\n\n"
        "    def remember(self, module):\n        self.seen.append(module)\n"
    )
    keepers = derive(site, ["keeplib"])["keepers"]
    assert keepers == {
        name: ["keeplib.manager", 0, "Manager.get_instance().overrides", 5, "list"]
        for name in ("keeplib.Manager.get_instance().register", "keeplib.manager.Manager.get_instance().register")
    }


def test_a_model_handed_to_an_ecosystem_singleton_is_reported_without_the_distribution(tmp_path: Path) -> None:
    """bitsandbytes is not installed here: the shipped table says that its optimizer manager keeps the
    modules it is handed, reached through the accessor or through a local bound to it."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "model.py").write_text(
        "from torch import nn\n\n\ndef create_optimizer(model: nn.Module) -> None:\n    import bitsandbytes\n\n"
        "    manager = bitsandbytes.optim.GlobalOptimManager.get_instance()\n"
        "    for module in model.modules():\n        if isinstance(module, nn.Embedding):\n"
        "            manager.register_module_override(module, 'weight', {'optim_bits': 32})\n"
    )
    done = subprocess.run([*LINT, "model.py"], cwd=tmp_path, capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (1, ""), done.stderr
    assert done.stdout.startswith(
        "model.py:10:13: WG003 singleton's list "
        "`bitsandbytes.optim.optimizer.GlobalOptimManager.get_instance().module_weight_config_triple` holds nn.Module"
    ), done.stdout
    assert len(done.stdout.splitlines()) == 1, done.stdout


def test_a_namespace_directory_inside_an_installed_package_is_unknown(installed: tuple[Path, Path]) -> None:
    """``ecolib/plugins/`` has no ``__init__.py``: the path finder answers with a namespace portion, whose
    parent it looks up among the imported modules. Nothing is imported, so that lookup fails; the module is
    unknown, and the check goes on."""
    site, project = installed
    (site / "ecolib" / "plugins").mkdir()
    (site / "ecolib" / "plugins" / "layers.py").write_text("from torch import nn\n\n\nclass EcoModule(nn.Module):\n    pass\n")
    (project / "model.py").write_text(USER.replace("ecolib.layers", "ecolib.plugins.layers"))
    done = run(project, site)
    assert done.stderr == "", done.stderr
    assert done.returncode in (0, 1) and "internal error" not in done.stdout, done.stdout
