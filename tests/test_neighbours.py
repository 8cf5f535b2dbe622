"""The linters users run beside ours, installed from PyPI: ruff, configured as the README says, keeps our
``# noqa: WG001``; flake8-bugbear's B019 and WG006 land on the same line, and each sees what the other does
not (the README's WG006 section)."""
from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

from conftest import PINNING, readme_blocks

SILENCED = PINNING.replace("names = {}", "names = {}  # noqa: WG001")
WEAKGLOBALS = str(Path(sysconfig.get_path("scripts")) / "weakglobals")  # this environment's, whatever PATH says


def ruff(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--extend-select", "RUF100,RUF102", "--output-format", "concise", *arguments],
        capture_output=True, text=True, cwd=cwd,
    )


def test_ruff_configured_as_documented_keeps_our_noqa_and_without_it_deletes_it(tmp_path: Path) -> None:
    (documented,) = [text for language, text in readme_blocks() if language == "toml" and "[tool.ruff.lint]" in text]
    (tmp_path / "pins.py").write_text(SILENCED)

    (tmp_path / "pyproject.toml").write_text(documented)
    assert ruff(".", cwd=tmp_path).returncode == 0
    assert ruff("--fix", ".", cwd=tmp_path).returncode == 0 and (tmp_path / "pins.py").read_text() == SILENCED
    ours = subprocess.run([WEAKGLOBALS, "pins.py"], capture_output=True, text=True, cwd=tmp_path)
    assert (ours.returncode, ours.stdout, ours.stderr) == (0, "", "")  # and the comment still silences our finding

    (tmp_path / "pyproject.toml").write_text("")
    complaint = ruff(".", cwd=tmp_path)
    assert complaint.returncode == 1, complaint.stdout + complaint.stderr
    (about,) = [line for line in complaint.stdout.splitlines() if line.startswith("pins.py:")]
    assert about.startswith("pins.py:3:") and about.endswith("WG001"), about  # RUF102: a code ruff does not know
    fixed = ruff("--fix", ".", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert (tmp_path / "pins.py").read_text() == PINNING  # the comment is gone: what the setting prevents
    unsilenced = subprocess.run([WEAKGLOBALS, "pins.py"], capture_output=True, text=True, cwd=tmp_path)
    assert (unsilenced.returncode, unsilenced.stdout.split(" ")[:2]) == (1, ["pins.py:3:1:", "WG001"])


CACHES = """\
import functools

import torch
from torch import nn


class Rotary(nn.Module):
    @functools.lru_cache(maxsize=None)
    def forward(self, length: int) -> torch.Tensor:
        return torch.arange(length)


class Table:
    @functools.cache
    def lookup(self, key: str) -> int:
        return len(key)


@functools.cache
def unique_device(module: nn.Module) -> torch.device:
    return next(module.parameters()).device
"""


def test_b019_and_wg006_share_a_line_and_each_sees_what_the_other_misses(tmp_path: Path) -> None:
    (tmp_path / "caches.py").write_text(CACHES)
    done = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "B019,WG", "caches.py"], capture_output=True, text=True, cwd=tmp_path
    )
    assert (done.returncode, done.stderr) == (1, ""), done.stderr
    found = sorted(tuple(line.split(" ", 2)[:2]) for line in done.stdout.splitlines())
    assert found == sorted({
        ("caches.py:8:6:", "B019"), ("caches.py:8:6:", "WG006"),  # a cached method of an nn.Module: both
        ("caches.py:14:6:", "B019"),  # a method of a plain class keyed by strings: B019 only
        ("caches.py:19:2:", "WG006"),  # a function keyed by a module: WG006 only
    })
    silenced = CACHES.replace("    @functools.lru_cache(maxsize=None)", "    @functools.lru_cache(maxsize=None)  # noqa: B019, WG006")
    (tmp_path / "caches.py").write_text(silenced)
    again = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "B019,WG", "caches.py"], capture_output=True, text=True, cwd=tmp_path)
    assert (again.returncode, again.stderr) == (1, ""), again.stderr
    assert sorted(tuple(line.split(" ", 2)[:2]) for line in again.stdout.splitlines()) == [("caches.py:14:6:", "B019"), ("caches.py:19:2:", "WG006")]
