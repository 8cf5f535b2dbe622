"""The project's other files as the codemod reads them: every Python file under the tree that can import a
module, read and decoded once per run, which of them spell a word, and their trees, parsed once.

A fix is checked against every module that could reach the container; these are the questions that find
those modules cheaply (a substring search per file and word) before any of them is parsed.
"""
from __future__ import annotations

import ast
import functools
import os
import re
import warnings
from pathlib import Path
from typing import Iterable, Iterator, Optional

from flake8_weakglobals.index.project import INSTALLED_ROOTS, ModuleContext, is_python_script
from flake8_weakglobals.source.python_files import SKIPPED_DIRECTORIES, SourceError, decode_source

MAX_FILES = 20_000  # a bigger project is not scanned: every fix there is refused rather than guessed


@functools.lru_cache(maxsize=256)
def parsed(text: str) -> Optional[ast.Module]:
    """Another module's tree, or None when it cannot be parsed (its syntax warnings are not ours to show).
    Kept for the run's next questions: every container of a module asks the same modules about its uses."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None


def importers_scope(context: ModuleContext) -> Path:
    """Where the modules that can import this one live: the project's tree; outside any project, the
    directory it is imported from, whose scripts import it by its bare name (``import tracker`` beside
    ``tracker.py``), or for a ``src/`` layout the directory around it, where its scripts put ``src`` on the
    path; in an installed distribution, its own top-level package, never all of site-packages."""
    if context.index.project is not None:
        return context.index.project
    root = context.index.roots[0]
    if root.name in INSTALLED_ROOTS:
        return root / context.name.partition(".")[0]
    return root.parent if root.name == "src" else root  # a src layout's scripts and tests live beside ``src/``


@functools.lru_cache(maxsize=8)
def texts_under(scope: Path) -> Optional[dict[Path, str]]:
    """Every Python file under ``scope`` (real paths) and its text, read once per run and process: a run
    that fixes many files checks each container against the same tree."""
    texts: dict[Path, str] = {}
    for directory, subdirectories, files in os.walk(scope):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith(".") and (d not in SKIPPED_DIRECTORIES or _subpackage(directory, d)))
        real_directory = os.path.realpath(directory)  # once per directory: each component costs a system call
        for name in sorted(files):
            if not name.endswith(".py") and ("." in name or not is_python_script(Path(directory) / name)):
                continue
            if len(texts) >= MAX_FILES:
                return None
            joined = os.path.join(real_directory, name)
            candidate = Path(os.path.realpath(joined) if os.path.islink(joined) else joined)
            if not candidate.is_file():
                continue  # a FIFO would block the read forever; a dangling link has nothing to read
            try:
                texts[candidate] = _decoded(candidate)
            except (OSError, SourceError):
                continue  # not Python we could import either
    return texts


def _decoded(path: Path) -> str:
    """A module's text as Python decodes it: UTF-8 (the usual case, one decode), else by its coding cookie."""
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return decode_source(path, raw).text


def _subpackage(directory: str, name: str) -> bool:
    """``trainer/dist/``: a package inside a package, code an import reaches, whatever its name; a ``build/``
    or ``dist/`` beside the project's packages holds copies, which ``texts_under`` skips."""
    return os.path.isfile(os.path.join(directory, name, "__init__.py")) and os.path.isfile(os.path.join(directory, "__init__.py"))


def spells(scope: Path, path: Path, word: str) -> bool:
    """Whether the file at ``path`` under ``scope`` spells the identifier ``word``."""
    return path in _spelling(scope, word)


@functools.lru_cache(maxsize=4096)
def _spelling(scope: Path, word: str) -> dict[Path, None]:
    """The files under ``scope`` that spell the identifier ``word``, in the order the files were listed:
    one substring search per file and word asked, memoised for the run. A run asks a few words (three over
    torch's 2,285 files, besides the by-name words), so an index of every word of every file, which took
    2.5 s over torch, costs more than it saves."""
    pattern = whole_word(word)
    return dict.fromkeys(path for path, text in (texts_under(scope) or {}).items() if word in text and pattern.search(text))


@functools.lru_cache(maxsize=4096)
def whole_word(word: str) -> re.Pattern[str]:
    """The identifier ``word`` as a whole word, searched for its literal first (the fast search)."""
    return re.compile(rf"{re.escape(word)}(?!\w)(?<!\w{re.escape(word)})")


def mentioning(scope: Path, words: Iterable[str]) -> Iterator[Path]:
    """The files under ``scope`` that mention any of ``words``, in the order the files were listed."""
    found: dict[Path, None] = {}
    for word in words:
        found.update(_spelling(scope, word))
    if len(found) < 2:
        return iter(found)
    order = _listed_at(scope)
    return iter(sorted(found, key=order.__getitem__))


@functools.lru_cache(maxsize=8)
def _listed_at(scope: Path) -> dict[Path, int]:
    return {path: position for position, path in enumerate(texts_under(scope) or {})}


def shown_path(path: Path) -> str:
    """A file as a reason names it: relative to where the command runs, when it is below it."""
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()
