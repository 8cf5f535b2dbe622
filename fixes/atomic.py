"""Safe writes: never half-written, never over a change someone else made, never through a read-only bit.

A write goes to a temporary file beside the target, is fsynced, given the target's mode, then renamed over
it, so an interrupted run leaves every file either old or new. A rewrite is computed from the bytes read
at the start of the run; ``replace_if_unchanged`` writes it only if those bytes are still on disk, writes
through a symbolic link to the file it points at (the link stays a link), and refuses a read-only file,
which a rename would otherwise replace without asking.
"""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from flake8_weakglobals.source.python_files import digest

NEW_FILE_MODE = 0o644


class Refused(Exception):
    """The file is not in the state the rewrite was computed from, or may not be written."""


def replace_if_unchanged(path: Path, data: bytes, expected_digest: bytes) -> None:
    target = Path(os.path.realpath(path))
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
        current = target.read_bytes()
    except FileNotFoundError:
        raise Refused("the file was deleted during the run") from None
    if not mode & 0o222 or not os.access(target, os.W_OK):
        raise Refused("the file is read-only")
    if digest(current) != expected_digest:
        raise Refused("the file changed on disk during the run")
    write_atomically(target, data)


def write_atomically(path: Path, data: bytes) -> None:
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else NEW_FILE_MODE
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
