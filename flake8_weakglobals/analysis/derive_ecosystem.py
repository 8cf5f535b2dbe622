"""Derive ``ecosystem_classes.json`` from the real packages: which classes of the PyTorch ecosystem are
modules, tensors, optimizers or LR schedulers, and which hold such objects, for when a project's linting
environment does not have those distributions installed.

    python -m flake8_weakglobals.analysis.derive_ecosystem SITE PACKAGE... > flake8_weakglobals/analysis/ecosystem_classes.json

``SITE`` is a directory the packages are unpacked or installed in (``pip download --no-deps`` their wheels
and unzip them there: nothing is imported, so no GPU or optional dependency is needed); torch itself is
found where this interpreter has it. Each module of each package is read with the linter's own project
index, and each public class's lineage resolved as a check would resolve it. Kept, of those, the
well-known ones: the classes other classes derive from (``PreTrainedModel``, ``ModelMixin``,
``MegatronModule``: what user code subclasses), the optimizers, schedulers and tensor types, and every
class a package's top-level ``__init__`` exports; each at the module that defines it and under every name a
package's ``__init__`` re-exports it as (what users write: ``transformers.PreTrainedModel``,
``lightning.LightningModule``). The thousands of concrete model classes are left out: a project subclasses
their bases, and where a package is installed the index reads it directly. The output records each
package's version (from its ``*.dist-info``), so a reader knows what the table was derived from.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Optional

from ..index.project import ModuleContext, ProjectIndex, module_name
from ..index.summaries import ModuleSummary
from .framework_types import Vocabulary
from .imported_kinds import Imported

#: How many holders deep the table follows what a class holds. A check in a user's project walks two steps
#: (``Imported.holder``): it asks of every class it meets. The table is derived once, so it follows chains
#: as long as the packages make them: ``LightningDataModule`` holds the ``Trainer``, which holds its
#: connector, which holds the strategy, which holds the model.
_CHAIN_STEPS = 8


def derive(site: Path, packages: list[str]) -> dict[str, object]:
    sys.path.insert(0, str(site))  # what the index's installed-module finder searches besides the project
    index = ProjectIndex([site], cache=None)
    vocabulary = Vocabulary(with_ecosystem=False)  # what the packages say, not what an older table said
    kinds: dict[str, str] = {}
    keepers: dict[str, list[object]] = {}
    holders: dict[str, str] = {}
    exported: list[tuple[str, str]] = []  # (name as re-exported, the name it stands for)
    bases: set[str] = set()  # classes some scanned class derives from
    top_level: set[str] = set()  # what a package's own ``__init__`` exports
    for package in packages:
        for path in sorted((site / package).rglob("*.py")):
            name = module_name(path, site)
            summary = index.module(name) if name else None
            if summary is None:
                continue
            imported = Imported(ModuleContext(index, summary.name, path.name == "__init__.py"), vocabulary)
            keepers.update(_process_wide_keepers(summary))
            for cls, named in summary.classes.items():
                bases.update(index.resolve(base) for base in named)
                qualified = f"{summary.name}.{cls}"
                if cls.startswith("_"):
                    continue
                kind = imported.class_kind(qualified)
                if kind is not None:
                    kinds[qualified] = kind.kind
                elif (holder := imported.holder(qualified, depth=_CHAIN_STEPS)) is not None:
                    holders[qualified] = holder.why
            if path.name == "__init__.py":
                exported.extend((f"{summary.name}.{alias}", index.resolve(target)) for alias, target in summary.aliases.items())
                if summary.name == package:
                    top_level.update(index.resolve(target) for target in summary.aliases.values())
    known = bases | top_level
    kinds = {name: kind for name, kind in kinds.items() if name in known or kind != "module"}
    holders = {name: why for name, why in holders.items() if name in known}
    for alias, target in exported:
        if not alias.rpartition(".")[2].startswith("_"):
            if target in kinds:
                kinds.setdefault(alias, kinds[target])
            elif target in holders:
                holders.setdefault(alias, holders[target])
            for path, keeper in list(keepers.items()):
                if path.startswith(f"{target}."):
                    keepers.setdefault(f"{alias}{path[len(target):]}", keeper)
    return {
        "derived_from": {package: _version(site, package) for package in packages},
        "kinds": dict(sorted(kinds.items())),
        "holders": dict(sorted(holders.items())),
        "keepers": dict(sorted(keepers.items())),
    }


def _process_wide_keepers(summary: ModuleSummary) -> dict[str, list[object]]:
    """The methods of a package's singletons that put an argument into the singleton's own container
    (``GlobalOptimManager.get_instance().register_module_override(module, ...)`` appends the module to a list
    the process keeps): a project that calls one with a model keeps the model for the process, though the
    container is not the project's. Only routes through a singleton's accessor: which instance a plain
    method is called on is the caller's, and a package's caches are its own business."""
    return {
        f"{summary.name}.{path}": [summary.name, position, container, line, kind]
        for path, (position, container, line, kind, _) in summary.keepers.items()
        if "()." in path and kind != "cache"
    }


def _version(site: Path, package: str) -> Optional[str]:
    """The version of the distribution that ships ``package``, from its ``*.dist-info/top_level.txt`` or
    ``RECORD`` (the directory's own name says the version)."""
    for info in sorted(site.glob("*.dist-info")):
        names = {package.replace("_", "-"), package}
        distribution, _, version = info.name[: -len(".dist-info")].partition("-")
        record = info / "RECORD"
        tops = {line.split("/", 1)[0] for line in record.read_text(encoding="utf-8").splitlines()} if record.is_file() else set()
        if package in tops or distribution.replace("_", "-") in names:
            return f"{distribution}=={version}"
    return None


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="directory the packages are unpacked or installed in")
    parser.add_argument("packages", nargs="+", help="top-level packages to read (transformers, lightning, ...)")
    arguments = parser.parse_args(argv)
    print(json.dumps(derive(arguments.site.resolve(), arguments.packages), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
