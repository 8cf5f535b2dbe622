"""One file through the analysis, as the hook and the codemod both need it: read, prefilter, parse,
analyse, then keep the selected codes that ``# noqa`` does not silence. Failures become errors that name
the file and line, never exceptions."""
from __future__ import annotations

import ast
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..analysis.framework_types import may_mention_framework
from ..index.project import context_for
from ..rules.analyze_module import analyze
from ..rules.findings import Finding
from ..source import parse_once
from ..source.noqa import NoqaMap
from ..source.python_files import Source, SourceError, read_source
from ..syntax.scopes import top_level_spans
from .config import Settings


@dataclass
class CheckedFile:
    path: Path
    source: Optional[Source] = None
    tree: Optional[ast.Module] = None
    findings: list[Finding] = field(default_factory=list)
    error: Optional[str] = None
    error_line: int = 1


def check_file(path: Path, settings: Settings) -> CheckedFile:
    try:
        source = read_source(path)
    except SourceError as error:
        return CheckedFile(path, error=str(error), error_line=error.line)
    return check_source(path, source, settings)


def check_source(path: Path, source: Source, settings: Settings) -> CheckedFile:
    """A source already read (a file, or standard input checked as ``path``)."""
    vocabulary = settings.vocabulary
    if not may_mention_framework(source.text, vocabulary):
        return CheckedFile(path, source)
    try:
        tree = parse_once.take(path, source.text) or parse(source.text, str(path))
    except ParseError as error:
        return CheckedFile(path, source, error=str(error), error_line=error.line)
    try:
        findings = analyze(tree, source.text, vocabulary, context_for(path))
    except Exception as error:  # a bug of ours: reported on this file, never a traceback that stops the run
        return CheckedFile(path, source, error=internal_error(error))
    return CheckedFile(path, source, tree, reportable(findings, tree, source.text, settings))


class ParseError(Exception):
    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def parse(text: str, filename: str) -> ast.Module:
    """``ast.parse`` with every failure as a ParseError that says where and why, in words a user can act on."""
    try:
        with warnings.catch_warnings():  # "is" with a literal, invalid escapes: not ours to report
            warnings.simplefilter("ignore")
            return ast.parse(text, filename=filename)
    except (SyntaxError, ValueError) as error:  # ValueError: null bytes, before Python 3.11.4
        if "\0" in text:  # reported without a line
            raise ParseError("cannot parse: the file contains a NUL byte", text.count("\n", 0, text.index("\0")) + 1) from None
        version = "{}.{}".format(*sys.version_info)
        message = getattr(error, "msg", None) or str(error)
        raise ParseError(f"cannot parse with Python {version}: {message}", getattr(error, "lineno", None) or 1) from None
    except (RecursionError, MemoryError):
        raise ParseError("cannot parse: nested too deeply for Python's parser", 1) from None


def internal_error(error: Exception) -> str:
    return f"internal error in flake8-weakglobals, please report it: {error!r}"


def reportable(findings: list[Finding], tree: ast.Module, text: str, settings: Settings) -> list[Finding]:
    """Selected codes, minus what ``# noqa`` silences (as flake8 reads it)."""
    selected = [finding for finding in findings if settings.wants(finding.code)]
    if not selected:
        return []
    noqa = NoqaMap(text, top_level_spans(tree))
    return [finding for finding in selected if not noqa.silences(finding.code, finding.line)]
