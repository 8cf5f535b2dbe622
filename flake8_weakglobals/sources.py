"""Finding Python files and reading them byte-faithfully, for the hook and the codemod.

Reading keeps what a rewrite must give back unchanged: the encoding (a PEP 263 cookie, a BOM) and the
line endings (``\\r\\n`` survives because bytes are decoded, not read in text mode).
"""
from __future__ import annotations

import fnmatch
import hashlib
import io
import os
import stat
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

SKIPPED_DIRECTORIES = frozenset(
    {".git", ".hg", ".svn", "__pycache__", "build", "dist", ".tox", ".nox", ".venv", "venv", ".eggs",
     ".mypy_cache", ".pytest_cache", ".ruff_cache", "node_modules", "site-packages"}
)


class SourceError(Exception):
    """A file that cannot be read or decoded; ``line`` is where, when known."""

    def __init__(self, message: str, line: int = 1) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class Source:
    path: Path
    text: str
    encoding: str  # as detected: "utf-8", "utf-8-sig" (a BOM), "latin-1", ...
    digest: bytes  # of the bytes read: a writer checks that nobody changed the file since


def digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def read_source(path: Path) -> Source:
    """The file's text as Python would decode it. Only regular files are read (a FIFO would block forever)."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise SourceError("not a regular file")
        raw = path.read_bytes()
    except OSError as error:
        dangling = " (a symbolic link to a missing file)" if path.is_symlink() and not path.exists() else ""
        raise SourceError(f"cannot read: {error.strerror or error}{dangling}") from None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        return Source(path, raw.decode(encoding), encoding, digest(raw))
    except SyntaxError as error:  # a bad coding cookie
        raise SourceError(f"cannot decode: {error.msg if hasattr(error, 'msg') else error}", error.lineno or 1) from None
    except LookupError as error:
        raise SourceError(f"cannot decode: {error}") from None
    except UnicodeDecodeError as error:
        line_start = raw.rfind(b"\n", 0, error.start) + 1
        line = raw.count(b"\n", 0, error.start) + 1
        raise SourceError(
            f"cannot decode as {error.encoding}: byte 0x{raw[error.start]:02x} at column {error.start - line_start + 1} "
            f"({error.reason}); add a coding cookie or re-encode the file",
            line,
        ) from None


def is_excluded(path: Path, patterns: Iterable[str]) -> bool:
    """flake8's rule: a pattern matches the file's name or its path."""
    return any(fnmatch.fnmatch(path.name, pattern) or fnmatch.fnmatch(path.as_posix(), pattern) for pattern in patterns)


def python_files(paths: Iterable[Path], exclude: Iterable[str] = ()) -> Iterator[Path]:
    """Files named on the command line as given; directories walked, skipping VCS, build and environments.

    A file reached twice (named twice, or through a symbolic link to another listed file) is yielded once,
    so it is never rewritten twice."""
    seen: set[str] = set()
    for path in _candidates(paths, tuple(exclude)):
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            yield path


def _candidates(paths: Iterable[Path], patterns: tuple[str, ...]) -> Iterator[Path]:
    for path in paths:
        if is_excluded(path, patterns):
            continue
        if not path.is_dir():
            yield path
            continue
        for directory, subdirectories, files in os.walk(path):
            here = Path(directory)
            subdirectories[:] = sorted(
                name
                for name in subdirectories
                if name not in SKIPPED_DIRECTORIES
                and not (here / name / "pyvenv.cfg").exists()
                and not is_excluded(here / name, patterns)
            )
            for name in sorted(files):
                if name.endswith(".py") and not is_excluded(here / name, patterns):
                    yield here / name
