"""Terminal niceties for the command-line tools: colour and progress, only on a terminal.

Colour honours ``NO_COLOR`` (https://no-color.org) and ``FORCE_COLOR``; progress goes to stderr, only on a
terminal and only for long runs, so logs and CI output stay clean.
"""
from __future__ import annotations

import functools
import os
import signal
import sys
import time
from typing import Callable, NoReturn, Optional, Sequence, TextIO

_PROGRESS_THRESHOLD = 200  # files; shorter runs finish before a progress line helps


def colour_enabled(stream: TextIO) -> bool:
    """On a terminal; never with ``NO_COLOR`` set to anything but the empty string, always with
    ``FORCE_COLOR`` (https://force-color.org) so set, for CI logs that render colour. ``NO_COLOR`` wins."""
    if os.environ.get("NO_COLOR"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or stream.isatty()


def paint(text: str, code: str, stream: TextIO = sys.stdout) -> str:
    """``code`` is an SGR parameter: "1" bold, "31" red, "33" yellow, "32" green, "2" dim."""
    return f"\033[{code}m{text}\033[0m" if colour_enabled(stream) else text


class Progress:
    """``checked 120/5,000 files`` on stderr, redrawn at most ten times a second."""

    def __init__(self, total: int, stream: TextIO = sys.stderr) -> None:
        self.total = total
        self.stream = stream
        self.enabled = stream.isatty() and total >= _PROGRESS_THRESHOLD
        self._drawn = 0.0

    def update(self, done: int) -> None:
        now = time.monotonic()
        if self.enabled and (now - self._drawn > 0.1 or done == self.total):
            self._drawn = now
            self.stream.write(f"\rchecked {done:,}/{self.total:,} files")
            self.stream.flush()

    def clear(self) -> None:
        """Erase the progress line, before printing output or when done."""
        if self.enabled:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self._drawn = 0.0

    close = clear


def command_line(main: Callable[[Optional[Sequence[str]]], int]) -> Callable[[Optional[Sequence[str]]], int]:
    """What both command lines do at their edge. SIGTERM (a CI job's timeout) arrives as Ctrl-C does, so
    each command stops cleanly in its own ``except KeyboardInterrupt``. A reader that goes away (``| head``)
    ends the run quietly, as for Unix tools: files already written stay written, and a write in progress
    completes or never happens."""

    @functools.wraps(main)
    def guarded(argv: Optional[Sequence[str]] = None) -> int:
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        try:
            return main(argv)
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the exit's flush must not fail again
            return 1

    return guarded


def exit_after(main: Callable[[Optional[Sequence[str]]], int]) -> NoReturn:
    """Runs a command line as the process's whole life, then leaves without tearing the heap down: once the
    streams are flushed nothing is left to do, and a run's trees, references and summaries are millions of
    objects that the interpreter would free one by one after a last pass of the cyclic collector over them
    (a quarter of ``fixes.apply --check``'s CPU time over torch). mypy leaves the same way. Only for the
    installed commands and ``python -m``: ``main`` itself returns, for callers in their own process."""
    try:
        code = main(None)
    except SystemExit as exit:  # argparse's errors and --help
        code = exit.code if isinstance(exit.code, int) else 0 if exit.code is None else 1
        if not isinstance(exit.code, (int, type(None))):
            print(exit.code, file=sys.stderr)
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away after the last write: as ``command_line`` ends such a run
        code = 1
    try:
        sys.stderr.flush()
    except OSError:
        pass
    os._exit(code)
