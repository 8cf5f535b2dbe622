"""Killing ``python -m fixes.apply`` in the middle of a run over many files never leaves a damaged file.

The signal goes to the whole process group, as Ctrl-C in a terminal or a CI runner's timeout sends it.
After it, every file is byte for byte either what it was or what a complete run makes of it, and if any
file was rewritten the vendored runtime it imports is there, complete. Ctrl-C (SIGINT) and SIGTERM also
clean up: no temporary file is left, and the message says where the run stopped. SIGKILL cannot be
caught; at most the one temporary file being written is left, under a hidden name, beside its target.
A second run finishes the job.

"In the middle" is made certain, never left to how fast the machine is: the command prints into a pipe
of one page that only the test reads, so once the pipe is full the command waits on its next line and
cannot finish until the test reads on (``Run``); a worker is held in the middle of a file by a summary
cache entry that is a FIFO (``held_worker``). The signal comes after the test has read the line that says
a file was rewritten, and before it reads on.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import select
import signal
import stat
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

import pytest

from conftest import PINNING, fixed
from fixes.vendor import vendored_text

BODY = "".join(f"\n\ndef helper_{index}(x):\n    return x + {index}\n" for index in range(50))
FILES = 500
#: Long module names make each line a run prints long: what a run over FILES files prints then outgrows
#: the smallest pipe Linux makes (one page, 4 KiB, or 64 KiB on a kernel with 64 KiB pages) many times over.
NAME = "m{:03}_" + "x" * 200 + ".py"
HANG = 120  # seconds: only a guard against a hang, never a claim about speed
#: The file that ``held_worker`` holds a worker on: in the middle of the run, never in its first chunk.
HELD = FILES // 2
USES_A_SIBLING = PINNING.replace("from torch import nn\n", "from torch import nn\n\nfrom pkg.z_blocks import Block\n") + (
    "\n\ndef add_block(block: Block) -> None:\n    names[block] = 2\n"
)


def make_package(root: Path) -> dict[Path, str]:
    package = root / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    sources = {package / NAME.format(index): PINNING + BODY for index in range(FILES)}
    for path, text in sources.items():
        path.write_text(text)
    return sources


@dataclass
class Run:
    """A command in its own process group (to signal it as a terminal does), printing into a one-page pipe."""

    process: subprocess.Popen[str]
    output: int  # the pipe's reading end
    capacity: int  # what the pipe holds: a command with more than this left to print cannot finish unread
    reading: bool = True  # the test still holds the reading end

    def line(self) -> str:
        """The next line the command prints, read a byte at a time: not a byte more leaves the pipe."""
        read = bytearray()
        while not read.endswith(b"\n"):
            ready, _, _ = select.select([self.output], [], [], HANG)
            if not ready:
                pytest.fail(f"no output for {HANG} s: the run hung")
            byte = os.read(self.output, 1)
            if not byte:
                pytest.fail(f"the run ended before printing a line: {self.process.communicate(timeout=HANG)[1]}")
            read += byte
        return read.decode()

    def finish(self) -> str:
        """Reads the rest of the output until every process that holds the pipe (the command and its workers,
        which inherit it) has exited; returns what the command wrote on stderr."""
        drain = threading.Thread(target=self._drain, daemon=True)
        drain.start()
        _, stderr = self.process.communicate(timeout=HANG)
        drain.join(HANG)
        assert not drain.is_alive(), "a process still holds the output open: a worker outlived the run"
        return stderr

    def stop_reading(self) -> None:
        """Closes the reading end, as ``| head`` does once it has its lines: the command's next write fails."""
        os.close(self.output)
        self.reading = False

    def _drain(self) -> None:
        while os.read(self.output, 65536):
            pass


def _ctrl_c_as_on_a_terminal() -> None:
    """In the child, before it runs: SIGINT at its default, as a terminal's shell starts a command. A suite
    started in the background (``cmd &`` in a script, ``nohup``) hands its children SIGINT ignored, and
    Python then never raises KeyboardInterrupt: the Ctrl-C tests would test how the suite was started."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextlib.contextmanager
def running(
    arguments: list[str], cwd: Path, environment: Optional[dict[str, str]] = None, unbuffered: bool = True
) -> Iterator[Run]:
    """``python ARGUMENTS``, by default unbuffered (each line reaches the pipe when printed; buffered, the
    command also holds up to ``io.DEFAULT_BUFFER_SIZE`` bytes itself); killed whole at the end."""
    output, into = os.pipe()
    fcntl.fcntl(into, fcntl.F_SETPIPE_SZ, os.sysconf("SC_PAGESIZE"))
    capacity = fcntl.fcntl(into, fcntl.F_GETPIPE_SZ)
    variables = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    try:
        process = subprocess.Popen(
            [sys.executable, *arguments], cwd=cwd, stdout=into, stderr=subprocess.PIPE, text=True, start_new_session=True,
            env={**variables, "NO_COLOR": "1", **({"PYTHONUNBUFFERED": "1"} if unbuffered else {}), **(environment or {})},
            preexec_fn=_ctrl_c_as_on_a_terminal,
        )
    finally:
        os.close(into)
    run = Run(process, output, capacity)
    try:
        yield run
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        if run.reading:
            os.close(output)


def fixing(root: Path, jobs: int, environment: Optional[dict[str, str]] = None) -> contextlib.AbstractContextManager[Run]:
    return running(["-m", "fixes.apply", "--runtime", "vendor", "--jobs", str(jobs), "pkg"], root, environment)


def rewritten_first(run: Run, sources: dict[Path, str]) -> None:
    """Reads the lines saying the vendored runtime was written and then the first file (each is printed
    after its write), and checks that what the run has left to print cannot fit in the pipe."""
    first = min(sources)
    assert run.line().startswith("pkg/_weakglobals_runtime.py: created the vendored runtime")
    line = run.line()
    assert line == f"pkg/{first.name}: WG001 names\n"
    assert (FILES - 1) * len(line) > run.capacity, "the run could finish without the test reading on"


def children_of(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (its workers), from /proc."""
    children = []
    for status in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            if int(status.read_text().rsplit(")", 1)[1].split()[1]) == pid:  # the field after the state
                children.append(int(status.parent.name))
    return children


def exited(pid: int) -> bool:
    """Whether the process has exited (a zombie has), waiting for it at most HANG seconds: a pidfd becomes
    readable when its process exits, which may be a moment after it closed its files."""
    try:
        descriptor = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([descriptor], [], [], HANG)[0])
    finally:
        os.close(descriptor)


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["SIGINT", "SIGTERM", "SIGKILL"])
def test_an_interrupted_run_leaves_every_file_old_or_new(tmp_path: Path, how: signal.Signals, jobs: int) -> None:
    sources = make_package(tmp_path)
    with fixing(tmp_path, jobs) as run:
        rewritten_first(run, sources)
        os.killpg(run.process.pid, how)
        stderr = run.finish()

    rewritten = [path for path, text in sources.items() if path.read_text() == fixed(text, runtime="pkg._weakglobals_runtime")]
    untouched = [path for path, text in sources.items() if path.read_text() == text]
    assert len(rewritten) + len(untouched) == FILES, "a file is neither old nor new"
    assert rewritten and untouched, "the signal did not land mid-run; the test proved nothing"
    assert (tmp_path / "pkg" / "_weakglobals_runtime.py").read_text() == vendored_text(["maps"])

    leftovers = sorted(path.name for path in (tmp_path / "pkg").glob(".*"))
    if how == signal.SIGKILL:
        assert run.process.returncode == -signal.SIGKILL
        assert len(leftovers) <= 1 and all(name.startswith(".m") and name.endswith(".tmp") for name in leftovers)
    else:
        assert run.process.returncode == 130, stderr
        assert leftovers == []
        said = re.fullmatch(r"interrupted after (\d+) of (\d+) files: (\d+) were rewritten completely, every other file is unchanged\n", stderr)
        assert said is not None, stderr
        checked, total, changed = map(int, said.groups())
        assert (total, changed) == (FILES + 1, len(rewritten)) and checked > changed  # __init__.py has nothing to fix

    finish = subprocess.run([sys.executable, "-m", "fixes.apply", "--runtime", "vendor", "-q", "pkg"], cwd=tmp_path, capture_output=True, text=True)
    assert finish.returncode == 0, finish.stderr
    assert all(path.read_text() == fixed(text, runtime="pkg._weakglobals_runtime") for path, text in sources.items())


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_linter_stops_cleanly_too(tmp_path: Path, how: signal.Signals, jobs: int) -> None:
    """Every worker is gone when the command is: none holds the output open after it."""
    make_package(tmp_path)
    with running(["-m", "flake8_weakglobals.frontends.command", "--jobs", str(jobs), "pkg"], tmp_path) as run:
        line = run.line()
        assert line.startswith(f"pkg/{NAME.format(0)}:3:1: WG001 ")
        assert (FILES - 1) * len(line) > run.capacity, "the run could finish without the test reading on"
        os.killpg(run.process.pid, how)
        stderr = run.finish()
    assert (run.process.returncode, stderr) == (130, "interrupted\n")


@dataclass
class HeldWorker:
    """A FIFO in the place of a summary cache entry that the check of file HELD reads (``held_worker``)."""

    environment: dict[str, str]  # selects the cache
    fifo: Path
    writer: Optional[int] = None

    def reader(self, run: Run) -> int:
        """Waits until a worker of ``run`` has the FIFO open, and returns it. The test opens it to write
        (which returns once a reader has it open) and keeps it open: the worker's read then waits for data."""
        opener = threading.Thread(target=self._open, daemon=True)
        opener.start()
        opener.join(HANG)
        if self.writer is None:
            os.close(os.open(self.fifo, os.O_RDONLY | os.O_NONBLOCK))  # lets the opener's open return
            pytest.fail(f"no worker opened {self.fifo.name} in {HANG} s")
        readers = [pid for pid in children_of(run.process.pid) if _has_open(pid, self.fifo)]
        assert len(readers) == 1, readers
        return readers[0]

    def release(self) -> None:
        """Closes the FIFO: the worker's read ends, with nothing read."""
        assert self.writer is not None
        os.close(self.writer)
        self.writer = None

    def _open(self) -> None:
        self.writer = os.open(self.fifo, os.O_WRONLY)


def _has_open(pid: int, path: Path) -> bool:
    with contextlib.suppress(FileNotFoundError):
        return any(os.readlink(descriptor) == os.path.realpath(path) for descriptor in Path(f"/proc/{pid}/fd").iterdir())
    return False


@contextlib.contextmanager
def held_worker(root: Path, sources: dict[Path, str]) -> Iterator[HeldWorker]:
    """Makes file HELD of the package use a class of a sibling module, whose summary the index then reads
    from its cache, and turns that cache entry into a FIFO: the worker that checks file HELD waits on it
    for as long as the FIFO has a writer and no data. No other file of the package reads the cache. A run
    checks importers first (``import_order``): the sibling sorts after file HELD, so that file HELD keeps
    its place in the middle of the run."""
    (root / "pkg" / "z_blocks.py").write_text("from torch import nn\n\n\nclass Block(nn.Module):\n    pass\n")
    held = sorted(sources)[HELD]
    held.write_text(USES_A_SIBLING)
    sources[held] = USES_A_SIBLING
    cache = root / "cache"
    environment = {"WEAKGLOBALS_CACHE_DIR": str(cache)}
    warm = subprocess.run(
        [sys.executable, "-m", "flake8_weakglobals.frontends.command", str(held)], cwd=root, capture_output=True, text=True,
        env={**os.environ, **environment},
    )
    assert warm.returncode == 1 and warm.stderr == "", warm.stderr
    (entry,) = [path for path in cache.glob("*.json") if json.loads(path.read_text())["path"] == str(root / "pkg" / "z_blocks.py")]
    entry.unlink()
    os.mkfifo(entry)
    holder = HeldWorker(environment, entry)
    try:
        yield holder
    finally:
        if holder.writer is not None:
            os.close(holder.writer)


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_worker_in_the_middle_of_a_file_finishes_it_before_an_interrupted_run_ends(tmp_path: Path, how: signal.Signals) -> None:
    """Workers ignore Ctrl-C and SIGTERM (the parent stops the run): one held in the middle of a file when
    the signal comes goes on once the FIFO ends, finds the entry empty, summarises the sibling itself and
    stores that summary in the entry's place; the run ends only then. A worker that died of the signal
    would have left the FIFO where it was."""
    sources = make_package(tmp_path)
    with held_worker(tmp_path, sources) as held:
        arguments = ["-m", "flake8_weakglobals.frontends.command", "--jobs", "2", "pkg"]
        with running(arguments, tmp_path, held.environment) as run:
            held.reader(run)
            os.killpg(run.process.pid, how)
            held.release()
            stderr = run.finish()
    assert (run.process.returncode, stderr) == (130, "interrupted\n")
    assert stat.S_ISREG(held.fifo.stat().st_mode), "the worker died of the signal: the FIFO is still there"
    assert json.loads(held.fifo.read_text())["path"] == str(tmp_path / "pkg" / "z_blocks.py")


def test_a_worker_killed_mid_run_stops_the_run_with_every_file_old_or_new(tmp_path: Path) -> None:
    """As the kernel's out-of-memory killer would: one worker process gets SIGKILL in the middle of a file."""
    sources = make_package(tmp_path)
    with held_worker(tmp_path, sources) as held, fixing(tmp_path, 2, held.environment) as run:
        rewritten_first(run, sources)
        os.kill(held.reader(run), signal.SIGKILL)
        stderr = run.finish()

    assert run.process.returncode == 2 and "Traceback" not in stderr, stderr
    assert stderr.startswith("a worker process died after ") and "every other file is unchanged" in stderr
    rewritten = sum(path.read_text() == fixed(text, runtime="pkg._weakglobals_runtime") for path, text in sources.items())
    untouched = sum(path.read_text() == text for path, text in sources.items())
    assert rewritten + untouched == FILES and rewritten and untouched
    assert sorted(sources)[HELD].read_text() == USES_A_SIBLING, "the file being checked when its worker died was written"


def test_workers_exit_when_their_parent_is_killed_alone(tmp_path: Path) -> None:
    """As when the out-of-memory killer picks the parent: its workers, even one waiting in the middle of a
    file, must not wait for work forever."""
    sources = make_package(tmp_path)
    with held_worker(tmp_path, sources) as held, fixing(tmp_path, 2, held.environment) as run:
        rewritten_first(run, sources)
        held.reader(run)
        workers = children_of(run.process.pid)
        assert len(workers) == 2, workers
        os.kill(run.process.pid, signal.SIGKILL)
        run.finish()
        assert all(map(exited, workers)), "orphaned workers are still running"
