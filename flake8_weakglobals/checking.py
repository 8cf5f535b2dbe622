"""One file through the analysis, as the hook and the codemod both need it: read, prefilter, parse,
analyse, then keep the selected codes that ``# noqa`` does not silence. Failures become errors that name
the file and line, never exceptions."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from .analysis import analyze
from .config import Settings
from .findings import Finding
from .noqa import NoqaMap
from .sources import Source, SourceError, read_source
from .vocabulary import Vocabulary, may_mention_framework


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
    vocabulary = Vocabulary(settings.extra_types)
    if not may_mention_framework(source.text, vocabulary):
        return CheckedFile(path, source)
    try:
        tree = ast.parse(source.text, filename=str(path))
    except SyntaxError as error:
        return CheckedFile(path, source, error=f"cannot parse: {error.msg}", error_line=error.lineno or 1)
    except ValueError as error:  # null bytes
        return CheckedFile(path, source, error=f"cannot parse: {error}")
    return CheckedFile(path, source, tree, reportable(analyze(tree, source.text, vocabulary), source.text, settings))


def reportable(findings: list[Finding], text: str, settings: Settings) -> list[Finding]:
    """Selected codes, minus what ``# noqa`` silences (as flake8 reads it)."""
    selected = [finding for finding in findings if settings.wants(finding.code)]
    if not selected:
        return []
    noqa = NoqaMap(text)
    return [finding for finding in selected if not noqa.silences(finding.code, finding.line)]
