"""Killing ``python -m fixes.apply`` in the middle of a run over many files never leaves a damaged file.

The signal goes to the whole process group, as Ctrl-C in a terminal or a CI runner's timeout sends it.
After it, every file is byte for byte either what it was or what a complete run makes of it, and if any
file was rewritten the vendored runtime it imports is there, complete. Ctrl-C (SIGINT) and SIGTERM also
clean up: no temporary file is left, and the message says where the run stopped. SIGKILL cannot be
caught; at most the one temporary file being written is left, under a hidden name, beside its target.
A second run finishes the job.
"""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator, Optional

import pytest

from conftest import PINNING, fixed, installed_package
from fixes.vendor import vendored_text

BODY = "".join(f"\n\ndef helper_{index}(x):\n    return x + {index}\n" for index in range(50))
FILES = 500


def make_package(root: Path) -> dict[Path, str]:
    package = root / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    sources = {package / f"m{index:03}.py": PINNING + BODY for index in range(FILES)}
    for path, text in sources.items():
        path.write_text(text)
    return sources


@contextlib.contextmanager
def running(arguments: list[str], cwd: Optional[Path] = None) -> Iterator[subprocess.Popen[str]]:
    """A command in its own process group (to signal it as a terminal does), killed whole if the test fails."""
    process = subprocess.Popen(
        [sys.executable, *arguments], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def fixing(root: Path, jobs: int) -> contextlib.AbstractContextManager[subprocess.Popen[str]]:
    return running(["-m", "fixes.apply", "--jobs", str(jobs), "pkg"], cwd=root)


def workers_of(process: subprocess.Popen[str]) -> list[int]:
    listed = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()
    assert listed, "no worker processes"
    return [int(pid) for pid in listed]


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] not in "ZX"  # a zombie is gone
    except (FileNotFoundError, IndexError):
        return False


def wait_for_the_first_rewrite(process: subprocess.Popen[str], sources: dict[Path, str]) -> None:
    last = max(sources)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if any(path.read_text() != text for path, text in sources.items() if path != last):
            return
        time.sleep(0.005)
    pytest.fail("the run ended or stalled before rewriting a file")


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["SIGINT", "SIGTERM", "SIGKILL"])
def test_an_interrupted_run_leaves_every_file_old_or_new(tmp_path: Path, how: signal.Signals, jobs: int) -> None:
    sources = make_package(tmp_path)
    with fixing(tmp_path, jobs) as process:
        wait_for_the_first_rewrite(process, sources)
        time.sleep(0.05)
        os.killpg(process.pid, how)
        _, stderr = process.communicate(timeout=120)

    rewritten = [path for path, text in sources.items() if path.read_text() == fixed(text, runtime="pkg._weakglobals_runtime")]
    untouched = [path for path, text in sources.items() if path.read_text() == text]
    assert len(rewritten) + len(untouched) == FILES, "a file is neither old nor new"
    assert rewritten and untouched, "the signal did not land mid-run; the test proved nothing"
    assert (tmp_path / "pkg" / "_weakglobals_runtime.py").read_text() == vendored_text(["maps"])

    leftovers = sorted(path.name for path in (tmp_path / "pkg").glob(".*"))
    if how == signal.SIGKILL:
        assert process.returncode == -signal.SIGKILL
        assert len(leftovers) <= 1 and all(name.startswith(".m") and name.endswith(".tmp") for name in leftovers)
    else:
        assert process.returncode == 130, stderr
        assert leftovers == []
        assert "Traceback" not in stderr
        assert "interrupted after " in stderr and f"{len(rewritten)} were rewritten completely" in stderr

    finish = subprocess.run([sys.executable, "-m", "fixes.apply", "-q", "pkg"], cwd=tmp_path, capture_output=True, text=True)
    assert finish.returncode == 0, finish.stderr
    assert all(path.read_text() == fixed(text, runtime="pkg._weakglobals_runtime") for path, text in sources.items())


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_linter_stops_cleanly_too(how: signal.Signals) -> None:
    with running(["-m", "flake8_weakglobals.frontends.command", str(installed_package("torch"))]) as process:
        time.sleep(2)  # the whole tree takes about ten seconds
        assert process.poll() is None, "the run ended before the signal"
        os.killpg(process.pid, how)
        _, stderr = process.communicate(timeout=60)
    assert (process.returncode, stderr) == (130, "interrupted\n")


def test_a_worker_killed_mid_run_stops_the_run_with_every_file_old_or_new(tmp_path: Path) -> None:
    """As the kernel's out-of-memory killer would: one worker process gets SIGKILL."""
    sources = make_package(tmp_path)
    with fixing(tmp_path, jobs=2) as process:
        wait_for_the_first_rewrite(process, sources)
        os.kill(workers_of(process)[0], signal.SIGKILL)
        _, stderr = process.communicate(timeout=120)

    assert process.returncode == 2 and "Traceback" not in stderr, stderr
    assert stderr.startswith("a worker process died after ") and "every other file is unchanged" in stderr
    rewritten = sum(path.read_text() == fixed(text, runtime="pkg._weakglobals_runtime") for path, text in sources.items())
    untouched = sum(path.read_text() == text for path, text in sources.items())
    assert rewritten + untouched == FILES and rewritten and untouched


def test_workers_exit_when_their_parent_is_killed_alone(tmp_path: Path) -> None:
    """As when the out-of-memory killer picks the parent: its workers must not wait for work forever."""
    sources = make_package(tmp_path)
    with fixing(tmp_path, jobs=2) as process:
        wait_for_the_first_rewrite(process, sources)
        workers = workers_of(process)
        os.kill(process.pid, signal.SIGKILL)
        deadline = time.monotonic() + 20
        while any(map(alive, workers)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(map(alive, workers)), "orphaned workers are still running"
