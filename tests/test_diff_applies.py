"""``--diff`` is a patch: the user's files first, the vendored runtime copies last, and it applies.

The printed diff is applied with the real ``git apply`` (and ``patch -p1`` where installed) to one copy of
a project; the same project is fixed for real in another; the two trees must be byte for byte the same.
With ``-q`` the diff is all that is printed, and it still applies. Both with the runtime inline (the
default: each file's patch holds its block, CRLF lines in a CRLF file) and with ``--runtime vendor``.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fixes.vendor import vendored_text

from conftest import PINNING, require

PORTABLE = (
    "from __future__ import annotations\n\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
    "    from torch import nn\n\nnames = {}\n\n\ndef add(module: nn.Module) -> None:\n    names[module] = 1\n"
)
PROJECT = {
    "pyproject.toml": '[project]\nname = "demo"\nversion = "0"\n',
    "pkg/__init__.py": "",
    "pkg/a.py": PORTABLE,
    "pkg/b.py": PINNING.replace("\n", "\r\n"),
    "nspkg/sub/c.py": PORTABLE,
    "scripts/run.py": PINNING + '\n\nif __name__ == "__main__":\n    layer = nn.Linear(1, 1)\n    add(layer)\n',
    "clean.py": "x = 1\n",
}


def tree(root: Path) -> dict[str, bytes]:
    """The project's files, without git's and the project index's cache: a run that writes keeps module
    summaries in ``.weakglobals_cache`` (keyed by absolute path, so never the same in two trees); a dry run
    writes none (``--diff writes nothing`` below sees the cache too)."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.parts and path.relative_to(root).parts[0] != ".weakglobals_cache"
    }


def files(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` but git's: what a dry run must leave as it found it."""
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file() and ".git" not in path.parts}


def make(root: Path) -> Path:
    for name, text in PROJECT.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(text.encode())
    return root


def fix(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """As bytes: the CRLF lines of ``pkg/b.py`` must reach ``git apply`` as they were printed."""
    return subprocess.run([sys.executable, "-m", "fixes.apply", *arguments], capture_output=True, cwd=cwd,
                          env={**os.environ, "NO_COLOR": "1"})


#: ``--runtime`` as each run gives it: the default (inline), and vendor.
MODES = {"inline": (), "vendor": ("--runtime", "vendor")}
USERS_FILES = ["nspkg/sub/c.py", "pkg/a.py", "pkg/b.py", "scripts/run.py"]


@pytest.fixture(scope="module", params=MODES)
def mode(request: pytest.FixtureRequest) -> tuple[str, ...]:
    return MODES[request.param]


@pytest.fixture(scope="module")
def fixed(tmp_path_factory: pytest.TempPathFactory, mode: tuple[str, ...]) -> dict[str, bytes]:
    """The tree a real run writes."""
    root = make(tmp_path_factory.mktemp("real"))
    done = fix(*mode, ".", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    return tree(root)


def headers(diff: str) -> list[str]:
    return re.findall(r"^\+\+\+ b/(\S+)", diff, flags=re.MULTILINE)


@pytest.mark.parametrize("quiet", [False, True], ids=["default", "-q"])
def test_the_diff_shows_the_users_files_first_and_applies_with_git_apply(
    quiet: bool, tmp_path: Path, mode: tuple[str, ...], fixed: dict[str, bytes]
) -> None:
    require(shutil.which("git") is not None, "git")
    root = make(tmp_path)
    original = files(root)
    done = fix(*mode, "--diff", *(["-q"] if quiet else []), ".", cwd=root)
    assert done.returncode == 1 and done.stderr == b"", done.stderr
    assert files(root) == original, "--diff writes nothing, not even the index's cache"
    diff = done.stdout.decode()
    copies = [] if not mode else ["nspkg/_weakglobals_runtime.py", "pkg/_weakglobals_runtime.py", "scripts/_weakglobals_runtime.py"]
    assert headers(diff) == USERS_FILES + copies
    # each file's patch comes after the proof of its fixes, as ``#`` lines that git apply and patch skip
    proof = diff.partition("--- a/nspkg/sub/c.py\n")[0].splitlines()
    assert proof[0].startswith("# nspkg/sub/c.py:") and proof[0].endswith("is rewritten because:"), proof
    assert all(line.startswith(("#   owner, ", "#   use, ")) for line in proof[1:]) and len(proof) > 2, proof
    if quiet:
        assert diff.startswith("# nspkg/sub/c.py:") and "would fix" not in diff
    elif not mode:
        each = [int(lines) for lines in re.findall(r"^\S+: WG001 names; the inline runtime would add (\d+) lines \(WeakIdMap\)$", diff, re.M)]
        assert len(each) == 4 and all(lines <= 300 for lines in each), each
        assert diff.endswith(f"would fix 4 containers in 4 files; the inline runtime would add {sum(each)} lines; 6 files checked\n")
    else:
        copy = vendored_text(["maps"])
        assert diff.endswith(f"scripts/_weakglobals_runtime.py: would create the vendored runtime ({copy.count(chr(10))} lines)\n"
                             f"would fix 4 containers in 4 files; the vendored runtime would add {3 * copy.count(chr(10))} lines; "
                             "6 files checked\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    applied = subprocess.run(["git", "apply", "-"], input=done.stdout, capture_output=True, cwd=root)
    assert applied.returncode == 0, applied.stderr
    assert tree(root) == fixed


def test_the_diff_applies_with_patch(tmp_path: Path, mode: tuple[str, ...], fixed: dict[str, bytes]) -> None:
    require(shutil.which("patch") is not None, "patch")
    root = make(tmp_path)
    done = fix(*mode, "--diff", "-q", ".", cwd=root)
    assert (done.returncode, done.stderr) == (1, b""), done.stderr
    applied = subprocess.run(["patch", "-p1", "--quiet", "--binary"], input=done.stdout, capture_output=True, cwd=root)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert tree(root) == fixed
