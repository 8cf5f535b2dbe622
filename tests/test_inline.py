"""The inline block across runs: it grows when a later fix needs another name, keeps clear of the module's own
names, adds nothing a star import sees, and a block we cannot read stops the fix instead of being doubled."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from fixes.inline import END

MAP = "import torch\n\nnames = {}\n\n\ndef add(module: torch.nn.Module) -> None:\n    names[module] = 1\n"
SET = "\nseen = set()\n\n\ndef mark(module: torch.nn.Module) -> None:\n    seen.add(module)\n"


def fix(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fixes.apply", *arguments], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "NO_COLOR": "1"})


def star_names(root: Path) -> list[str]:
    code = "from mod import *\nprint(sorted(name for name in dir() if not name.startswith('__')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_a_later_fix_grows_the_block_in_place_and_the_module_still_runs(tmp_path: Path) -> None:
    module = tmp_path / "mod.py"
    module.write_text(MAP)
    assert fix("mod.py", cwd=tmp_path).returncode == 0
    module.write_text(module.read_text() + SET)
    done = fix("mod.py", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "mod.py: WG002 seen; the inline runtime adds " in done.stdout and "(WeakIdMap, WeakIdSet)" in done.stdout
    text = module.read_text()
    assert text.count(END) == 1 and "its runtime inline: WeakIdMap, WeakIdSet." in text
    assert "\nnames = _WeakIdMap()\n" in text and "\nseen = _WeakIdSet()\n" in text
    probe = ("import gc, torch, mod\nkey = torch.nn.Linear(1, 1); mod.add(key); mod.mark(key); del key; gc.collect()\n"
             "print(len(mod.names), len(mod.seen))")
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert ran.stdout == "0 0\n", ran.stderr


def test_the_blocks_names_avoid_the_modules_and_a_star_import_sees_nothing_new(tmp_path: Path) -> None:
    module = tmp_path / "mod.py"
    module.write_text(MAP + "\n_WeakIdMap = 'the module own'\n_weakref = None\n")
    before = star_names(tmp_path)
    assert fix("mod.py", cwd=tmp_path).returncode == 0
    text = module.read_text()
    assert "class _WeakIdMap_1(" in text and "import weakref as _weakref_1\n" in text and "\nnames = _WeakIdMap_1()\n" in text
    assert star_names(tmp_path) == before


def test_a_block_without_its_end_line_is_reported_and_the_file_left_unchanged(tmp_path: Path) -> None:
    module = tmp_path / "mod.py"
    module.write_text(MAP)
    assert fix("mod.py", cwd=tmp_path).returncode == 0
    broken = module.read_text().replace(END + "\n", "") + SET
    module.write_text(broken)
    done = fix("mod.py", cwd=tmp_path)
    assert done.returncode == 2 and f"its end line `{END}` is gone" in done.stderr, done.stdout + done.stderr
    assert module.read_text() == broken


def test_a_module_that_binds_a_builtin_the_block_calls_is_left_unchanged_and_runs_with_the_vendored_copy(tmp_path: Path) -> None:
    """The block runs in the module's namespace: a module that defines ``list`` (as ``torch.hub`` does), or
    star-imports a package that binds ``range`` and ``sum`` (``from torch import *``), would have the block
    call its own. It is refused with the reason, and ``--runtime vendor`` fixes it."""
    for shadowing in ("\n\ndef list(*names: str) -> str:\n    return ','.join(names)\n", "from torch import *\n"):
        module = tmp_path / "mod.py"
        source = MAP + shadowing if shadowing.startswith("\n") else shadowing + MAP
        module.write_text(source)
        done = fix("mod.py", cwd=tmp_path)
        assert done.returncode == 2 and "where the inline runtime's code would call it as Python's builtin" in done.stderr, done.stdout + done.stderr
        assert module.read_text() == source
        assert fix("--runtime", "vendor", "mod.py", cwd=tmp_path).returncode == 0
        probe = "import gc, torch, mod\nkey = torch.nn.Linear(1, 1); mod.add(key); print(len(mod.names), list(mod.names) == [key])"
        ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path)
        assert ran.stdout == "1 True\n", ran.stderr
        (tmp_path / "_weakglobals_runtime.py").unlink()
