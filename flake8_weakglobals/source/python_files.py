"""Finding Python files and reading them byte-faithfully, for the hook and the codemod.

Reading keeps what a rewrite must give back unchanged: the encoding (a PEP 263 cookie, a BOM) and the
line endings (``\\r\\n`` survives because bytes are decoded, not read in text mode).
"""
from __future__ import annotations

import fnmatch
import functools
import hashlib
import io
import os
import re
import stat
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Optional

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
    raw: bytes  # as read

    @property
    def digest(self) -> bytes:
        """Of the bytes read: a writer checks that nobody changed the file since. Hashed only for a file
        that is rewritten (every file's hash was a cost of the linter and of ``--check``)."""
        return digest(self.raw)


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
    return decode_source(path, raw)


def decode_source(path: Path, raw: bytes) -> Source:
    """Bytes as Python would decode them (a coding cookie, a BOM, else UTF-8); also for standard input."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        return Source(path, raw.decode(encoding), encoding, raw)
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


@dataclass(frozen=True)
class Excludes:
    """Exclude patterns, matched as flake8 and ruff match them.

    A pattern without a ``/`` matches a file's or a directory's name (``generated``, ``*_pb2.py``); one with
    a ``/`` matches the absolute path, so ``exclude_patterns`` made it absolute from the configuration file's
    directory or, on the command line, the working directory (``./train_stats.py``, ``generated/*``).
    One that starts with a wildcard (``*/train_stats.py``) also matches the absolute path as written, as
    ruff's does. ``*`` crosses ``/``, as in both. ``exclude`` replaces the default list of directories
    that are never walked (``.git``, ``build``, virtual environments...), ``extend-exclude`` adds to it.
    """

    exclude: Optional[tuple[str, ...]] = None  # None: DEFAULT_EXCLUDE
    extend: tuple[str, ...] = ()

    @property
    def walking(self) -> tuple[str, ...]:
        """What prunes the walk of a directory."""
        return (DEFAULT_EXCLUDE if self.exclude is None else self.exclude) + self.extend

    @property
    def named(self) -> tuple[str, ...]:
        """What excludes a path named on the command line (pre-commit names every file): the user's own
        patterns only, so that ``weakglobals build`` still checks ``build``."""
        return (self.exclude or ()) + self.extend


DEFAULT_EXCLUDE = tuple(sorted(SKIPPED_DIRECTORIES))


def exclude_patterns(values: Iterable[str], base: Path) -> tuple[str, ...]:
    """Patterns as written (``./a.py``, ``generated/*``, ``build/``) made ready to match: path patterns
    absolute from ``base``, trailing slashes dropped."""
    patterns: list[str] = []
    for value in values:
        pattern = value.strip().rstrip("/")
        if not pattern:
            continue
        if "/" not in pattern:
            patterns.append(pattern)
            continue
        patterns.append(os.path.normpath(os.path.join(base, pattern)))
        if pattern[0] in "*?[":
            patterns.append(pattern)
    return tuple(dict.fromkeys(patterns))


def is_excluded(path: Path, patterns: tuple[str, ...]) -> bool:
    """Whether a pattern matches the path's name or its absolute path (see ``Excludes``), as
    ``fnmatch.fnmatch`` matches each."""
    by_name, by_path = _joined(patterns)
    name = os.path.normcase(path.name)
    if by_name is not None and name not in ("", ".", "..") and by_name.match(name):
        return True
    return by_path is not None and by_path.match(os.path.normcase(os.path.abspath(path))) is not None


@functools.lru_cache(maxsize=64)
def _joined(patterns: tuple[str, ...]) -> tuple[Optional[re.Pattern[str]], Optional[re.Pattern[str]]]:
    """The name patterns and the path patterns, each as one expression (``fnmatch``'s own translation):
    a walk asks about every file, and a match per pattern was a tenth of listing torch."""
    def joined(selected: list[str]) -> Optional[re.Pattern[str]]:
        return re.compile("|".join(fnmatch.translate(os.path.normcase(pattern)) for pattern in selected)) if selected else None

    return joined([pattern for pattern in patterns if "/" not in pattern]), joined([pattern for pattern in patterns if "/" in pattern])


def python_files(paths: Iterable[Path], exclude: Excludes = Excludes()) -> Iterator[Path]:
    """Files named on the command line as given; directories walked, skipping VCS, build and environments.

    A file reached twice (named twice, or through a symbolic link to another listed file) is yielded once,
    so it is never rewritten twice."""
    seen: set[str] = set()
    for path, real in _candidates(paths, exclude):
        if real not in seen:
            seen.add(real)
            yield path


def excluded_stdin(path: Path, excludes: Excludes) -> bool:
    """Whether the name standard input is checked as (``--stdin-filename``, what an editor passes) is
    excluded, by the user's patterns or the default ones, as flake8 excludes its ``--stdin-display-name``:
    an editor must not flag a file the project's own run would skip."""
    return _named_excluded(path, excludes.walking)


def _named_excluded(path: Path, patterns: tuple[str, ...]) -> bool:
    """A path named on the command line, or a directory it is in below the working directory, matches
    (ruff's ``--force-exclude``): pre-commit names ``generated/x.py``, and ``generated`` is excluded."""
    if not patterns:
        return False
    absolute = Path(os.path.abspath(path))
    here = Path.cwd()
    within = [parent for parent in absolute.parents if here in parent.parents]
    return any(is_excluded(candidate, patterns) for candidate in (absolute, *within))


def _candidates(paths: Iterable[Path], excludes: Excludes) -> Iterator[tuple[Path, str]]:
    """Each file with its real path, resolved once per tree named (resolving a path costs a system call per
    component): a directory the walk enters is no link (``os.walk`` enters none), so its real path is its
    parent's and its name; a file's is resolved again only if the file is itself a link."""
    walking = excludes.walking
    for path in paths:
        if _named_excluded(path, excludes.named):
            continue
        if not path.is_dir():
            yield path, os.path.realpath(path)
            continue
        reals = {os.fspath(path): os.path.realpath(path)}
        for directory, subdirectories, files in os.walk(path):
            here, real_directory = Path(directory), reals.pop(directory)
            subdirectories[:] = sorted(
                name
                for name in subdirectories
                if not (here / name / "pyvenv.cfg").exists() and not is_excluded(here / name, walking)
            )
            reals.update((os.path.join(directory, name), os.path.join(real_directory, name)) for name in subdirectories)
            for name in sorted(files):
                if name.endswith(".py") and not is_excluded(file := here / name, walking):
                    real = os.path.join(real_directory, name)
                    yield file, os.path.realpath(real) if os.path.islink(real) else real
