"""The runtime inline (the codemod's default) runs however the fixed module is loaded: differential runs with torch.

A vendored copy needs an import that resolves from wherever the module is run, and these are the layouts
where no import can (``runpy.run_path`` and ``spec_from_file_location`` put nothing on ``sys.path``; a
namespace package or a zipapp has no package of its own to hold a copy), or where a copy changes what the
program sees (``pkgutil.walk_packages`` finds it). For each, the same command runs in a fresh interpreter
before and after ``python -m fixes.apply`` with its default options: before, a dropped ``nn.Module`` key
stays in the global (``1 1 builtins``); after, it is collected (``1 0``) and the container's class is the
fixed module's own. The command blocks ``flake8_weakglobals`` (``sys.modules[...] = None``), so the fixed
code cannot lean on this package being installed, and no ``_weakglobals_runtime.py`` may be written.
"""
from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

MODULE = "from torch import nn\n\nnames = {}\n\n\ndef add(module: nn.Module) -> None:\n    names[module] = 1\n"
#: Run first: an import of this package from the fixed code fails, as it would where it is not installed.
BLOCKED = "import sys\nsys.modules['flake8_weakglobals'] = None\n"
# The probe reads the module the fix takes the map's class from (``_WeakIdMap``, the name the fix binds; none
# before it): a use of the project that read the map's type, ``type(m.names)`` or through
# ``getattr(m, "names")``, would rightly make the codemod refuse the fix (it checks the other modules' uses
# of a container, and of the module that holds it).
PROBE = (
    "import gc\nfrom torch import nn\nkey = nn.Linear(2, 2); m.add(key); before = len(m.names); del key; gc.collect()\n"
    "try:\n    runtime = m._WeakIdMap.__module__\nexcept AttributeError:\n    runtime = 'builtins'\n"
    "print(before, len(m.names), runtime)\n"
)


@dataclass(frozen=True)
class Layout:
    files: dict[str, str]
    load: str  # code that binds ``m`` to the module (or its namespace), run after BLOCKED and before PROBE
    module: str  # ``__name__`` of the fixed module where it runs: the inline classes' ``__module__``
    fixed: str  # the file the codemod rewrites
    zipapp: str = ""  # a directory to pack with ``zipapp`` before each run (``load`` runs the archive)


LAYOUTS = {
    "spec_from_file_location": Layout(
        {"plugins/pinning_plugin.py": MODULE},
        "import importlib.util\nspec = importlib.util.spec_from_file_location('plugin', 'plugins/pinning_plugin.py')\n"
        "m = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(m)\n",
        "plugin", "plugins/pinning_plugin.py"),
    "runpy.run_path": Layout(
        {"tools/job.py": MODULE}, "import runpy, types\nm = types.SimpleNamespace(**runpy.run_path('tools/job.py'))\n",
        "<run_path>", "tools/job.py"),
    "PEP 420 namespace package": Layout(
        {"nspkg/sub/stats.py": MODULE}, "import nspkg.sub.stats as m\n", "nspkg.sub.stats", "nspkg/sub/stats.py"),
    "pkgutil walk": Layout(
        {"pkg/__init__.py": "", "pkg/mod.py": MODULE},
        "import importlib, pkgutil, pkg\nfound = [info.name for info in pkgutil.walk_packages(pkg.__path__, 'pkg.')]\n"
        "print(*found)\nm = importlib.import_module(found[0])\n",
        "pkg.mod", "pkg/mod.py"),
    "zipapp": Layout(
        {"app/pinmod.py": MODULE, "app/__main__.py": "import pinmod as m\n" + PROBE},
        "import runpy\nrunpy.run_path('app.pyz', run_name='__main__')\n", "pinmod", "app/pinmod.py", zipapp="app"),
}


def run(layout: Layout, root: Path) -> subprocess.CompletedProcess[str]:
    if layout.zipapp:
        import zipapp

        zipapp.create_archive(root / layout.zipapp, root / f"{layout.zipapp}.pyz")
    code = BLOCKED + layout.load + ("" if layout.zipapp else PROBE)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root)


@pytest.mark.parametrize("name", LAYOUTS)
def test_a_module_fixed_inline_runs_however_it_is_loaded(name: str, tmp_path: Path) -> None:
    layout = LAYOUTS[name]
    for file, text in layout.files.items():
        (tmp_path / file).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / file).write_text(text)
    walked = "pkg.mod\n" if name == "pkgutil walk" else ""  # the walk finds the module, and nothing new after the fix

    before = run(layout, tmp_path)
    assert before.stdout == f"{walked}1 1 builtins\n", before.stderr
    done = subprocess.run([sys.executable, "-m", "fixes.apply", "."], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode == 0 and done.stderr == "", done.stdout + done.stderr
    assert f"{layout.fixed}: WG001 names; the inline runtime adds " in done.stdout
    text = (tmp_path / layout.fixed).read_text()
    assert "import flake8_weakglobals" not in text and "from flake8_weakglobals" not in text
    assert not list(tmp_path.rglob("_weakglobals_runtime.py"))

    after = run(layout, tmp_path)
    assert after.stdout == f"{walked}1 0 {layout.module}\n", after.stderr
