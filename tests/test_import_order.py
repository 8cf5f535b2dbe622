"""The order a run checks its files in (``index/import_order.py``): importers before what they import, read
from the import lines of real files in a real package layout."""
from __future__ import annotations

from pathlib import Path

from flake8_weakglobals.index.import_order import importers_first


def package(root: Path, files: dict[str, str]) -> list[Path]:
    (root / "pyproject.toml").write_text("[project]\nname = 'ordered'\n")
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return sorted(root.rglob("*.py"))


def names(paths: list[Path], order: list[int], root: Path) -> list[str]:
    return [paths[position].relative_to(root).as_posix() for position in order]


def test_each_module_comes_before_the_modules_it_imports_by_every_spelling(tmp_path: Path) -> None:
    paths = package(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "X = 1\n",
        "pkg/b.py": "from . import a\n",  # a submodule imported from its package, relatively
        "pkg/c.py": "x = 1\n",
        "pkg/d.py": "from .sub.e import thing\nimport pkg.c as see\n",
        "pkg/sub/__init__.py": "from ..f import (\n    F,\n)\n",  # relative to a package, across a line break
        "pkg/sub/e.py": "thing = 1\n",
        "pkg/f.py": "F = 1\n",
    })
    order = names(paths, importers_first(paths), tmp_path)
    assert sorted(order) == sorted(names(paths, list(range(len(paths))), tmp_path)), "each file once"
    for importer, imported in (("pkg/b.py", "pkg/a.py"), ("pkg/d.py", "pkg/sub/e.py"), ("pkg/d.py", "pkg/c.py"),
                               ("pkg/sub/__init__.py", "pkg/f.py")):
        assert order.index(importer) < order.index(imported), order


def test_modules_nothing_imports_keep_their_places_and_cycles_end(tmp_path: Path) -> None:
    paths = package(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/m1.py": "from pkg import m2\n",
        "pkg/m2.py": "from pkg import m1\n",  # a cycle: each once, in some order
        "pkg/m3.py": "",
        "pkg/m4.py": "",
        "pkg/m5.py": "import pkg.m1\n",
    })
    order = names(paths, importers_first(paths), tmp_path)
    # ``from pkg import m2`` imports the package too: its ``__init__`` waits for m1 and m2, m1 for m5
    assert order == ["pkg/m2.py", "pkg/m5.py", "pkg/m1.py", "pkg/__init__.py", "pkg/m3.py", "pkg/m4.py"], order


def test_scripts_and_files_in_other_encodings_are_ordered_too(tmp_path: Path) -> None:
    paths = package(tmp_path, {"my-scripts/run.py": "import pkg.x\n", "pkg/__init__.py": "", "pkg/x.py": ""})
    (tmp_path / "pkg" / "x.py").write_bytes(b"# \xff\xfe not UTF-8\nimport pkg\n")
    order = names(paths, importers_first(paths), tmp_path)
    assert order == ["my-scripts/run.py", "pkg/x.py", "pkg/__init__.py"], order


def test_submodules_named_in_parentheses_across_lines_come_after_their_importer(tmp_path: Path) -> None:
    paths = package(tmp_path, {
        "pkg/A.py": "",  # sorts before the package's ``__init__``, which would bring its importer first
        "pkg/B.py": "",
        "pkg/__init__.py": "",
        "pkg/m.py": "from pkg import (\n    A,  # a comment, with a comma\n    B as bee,\n)\n",
    })
    order = names(paths, importers_first(paths), tmp_path)
    assert order == ["pkg/m.py", "pkg/A.py", "pkg/B.py", "pkg/__init__.py"], order
