"""How ``weakglobals`` prints findings: ``text`` (flake8's lines), ``grouped`` (by file, as ruff's), ``json``,
``github`` (Actions workflow commands, which GitHub shows as annotations on the diff) and ``sarif`` (what
GitHub code scanning ingests).

``text``, ``grouped`` and ``github`` print each file's findings as it is checked; ``json`` and ``sarif`` are
one document, printed when the run ends. The JSON fields are a documented interface (the README's table
under "`weakglobals` options"): add fields, never rename or remove one.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, TextIO
from urllib.parse import quote

from .. import __version__
from ..rules.codes import RULES, advice
from ..rules.docs import DOCS, explanation, title
from ..rules.findings import Finding
from .terminal import paint

FORMATS = ("text", "grouped", "json", "github", "sarif")
DOCUMENTS = ("json", "sarif")  # one document on stdout: nothing else may be printed there
HOME = "https://github.com/flake8-weakglobals/flake8-weakglobals"


@dataclass(frozen=True)
class SourceFix:
    """The codemod's rewrite of a whole file: ``(offset, length, new text)`` in characters of the old text."""

    description: str
    replacements: tuple[tuple[int, int, str], ...]


@dataclass(frozen=True)
class FileReport:
    """One file's outcome, as a worker process sends it back: small, and plain data."""

    path: Path
    findings: tuple[Finding, ...] = ()
    error: Optional[str] = None
    error_line: int = 1
    skipped: bool = False  # the prefilter found no framework name: not parsed
    lines: dict[int, str] = field(default_factory=dict)  # the lines findings name, for sources and columns
    fix: Optional[SourceFix] = None  # for SARIF: the codemod's rewrite, when it has one


def column(report: FileReport, finding: Finding, utf16: bool = False) -> int:
    """The 1-based column in characters, or in UTF-16 code units as SARIF counts by default
    (``Finding.col`` counts UTF-8 bytes, as ``ast`` and flake8 do)."""
    before = report.lines.get(finding.line, "").encode("utf-8")[: finding.col].decode("utf-8", "replace")
    return (len(before.encode("utf-16-le")) // 2 if utf16 else len(before)) + 1


def message(finding: Finding) -> str:
    """The message without its leading code."""
    return finding.message.partition(" ")[2]


class Output:
    """Receives each file's report in order, then ``finish``."""

    def __init__(self, stream: TextIO = sys.stdout, show_source: bool = False) -> None:
        self.stream = stream
        self.show_source = show_source

    def file(self, report: FileReport) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        """Print what waits for the end: the document of ``json`` and ``sarif``."""

    def _source(self, report: FileReport, finding: Finding, indent: str) -> None:
        """``--show-source``: the reported line with a caret, the evidence line, and the why-and-how."""
        width = len(str(max(finding.line, finding.evidence.line)))
        gutter = f"{indent}{' ' * width} |"
        self._print(f"{indent}{finding.line:>{width}} | {report.lines.get(finding.line, '')}")
        self._print(f"{gutter} {' ' * (column(report, finding) - 1)}^")
        if finding.evidence.line != finding.line:
            self._print(f"{indent}{finding.evidence.line:>{width}} | {report.lines.get(finding.evidence.line, '')}")
        self._print(f"{indent}{' ' * width} = {advice(finding)}")

    def _print(self, text: str) -> None:
        self.stream.write(text.rstrip() + "\n")


class Text(Output):
    """``path:line:col: WG001 message``, flake8's format."""

    def file(self, report: FileReport) -> None:
        for finding in report.findings:
            self._print(f"{paint(str(report.path), '1')}:{finding.line}:{finding.col + 1}: "
                        f"{paint(finding.code, '31')} {message(finding)}")
            if self.show_source:
                self._source(report, finding, "    ")


class Grouped(Output):
    """The file name once, then ``line:col WG001 message`` under it, and a blank line."""

    def file(self, report: FileReport) -> None:
        if not report.findings:
            return
        self._print(f"{paint(str(report.path), '1')}:")
        for finding in report.findings:
            self._print(f"  {finding.line}:{finding.col + 1} {paint(finding.code, '31')} {message(finding)}")
            if self.show_source:
                self._source(report, finding, "    ")
        self._print("")


class FileNames(Output):
    """``-q``: the names of the files with findings, one a line, as ``flake8 -q`` prints them."""

    def file(self, report: FileReport) -> None:
        if report.findings:
            self._print(str(report.path))


def _escape_data(text: str) -> str:
    """GitHub's escaping of a workflow command's message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """GitHub's escaping of a workflow command's property value: also ``:`` and ``,``."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


class GitHub(Output):
    """``::warning file=F,line=L,col=C,title=WG001::message``: an annotation on the line in a pull request."""

    def file(self, report: FileReport) -> None:
        for finding in report.findings:
            properties = ",".join(
                f"{key}={_escape_property(str(value))}"
                for key, value in (("file", report.path.as_posix()), ("line", finding.line),
                                   ("col", column(report, finding)), ("title", finding.code))
            )
            self._print(f"::warning {properties}::{_escape_data(message(finding))}")


def json_finding(report: FileReport, finding: Finding) -> dict[str, Any]:
    """One finding as the ``json`` format prints it (the fields the README documents)."""
    return {
        "code": finding.code,
        "path": report.path.as_posix(),
        "line": finding.line,
        "column": finding.col + 1,
        "name": finding.name,
        "message": message(finding),
        "evidence_line": finding.evidence.line,
        "fixable": finding.fixable,
        "fix_reason": finding.fix_reason,
    }


class Json(Output):
    """A JSON array, one object per finding, in file and line order."""

    def __init__(self, stream: TextIO = sys.stdout, show_source: bool = False) -> None:
        super().__init__(stream, show_source)
        self.findings: list[dict[str, Any]] = []

    def file(self, report: FileReport) -> None:
        self.findings.extend(json_finding(report, finding) for finding in report.findings)

    def finish(self) -> None:
        self.stream.write(json.dumps(self.findings, indent=2) + "\n")


class Sarif(Output):
    """One SARIF 2.1.0 log: the rules with their documentation, a result per finding with its location and
    the evidence as a related location, the codemod's rewrite as a fix, and files that could not be
    checked as notifications."""

    def __init__(self, stream: TextIO = sys.stdout, show_source: bool = False) -> None:
        super().__init__(stream, show_source)
        self.results: list[dict[str, Any]] = []
        self.notifications: list[dict[str, Any]] = []

    def file(self, report: FileReport) -> None:
        if report.error is not None:
            self.notifications.append({
                "level": "error",
                "message": {"text": report.error},
                "locations": [_location(report.path, report.error_line)],
            })
        for finding in report.findings:
            result: dict[str, Any] = {
                "ruleId": finding.code,
                "ruleIndex": list(RULES).index(finding.code),
                "level": "warning",
                "message": {"text": message(finding)},
                "locations": [_location(report.path, finding.line, column(report, finding, utf16=True))],
                "relatedLocations": [
                    {**_location(report.path, finding.evidence.line), "id": 1, "message": {"text": finding.evidence.text}}
                ],
                "properties": {"name": finding.name, "fixable": finding.fixable, "fix_reason": finding.fix_reason},
            }
            if finding.fixable and report.fix is not None:
                result["fixes"] = [_fix(report.path, report.fix)]
            self.results.append(result)

    def finish(self) -> None:
        log = {
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [{
                "tool": {"driver": {
                    "name": "flake8-weakglobals",
                    "version": __version__,
                    "informationUri": HOME,
                    "rules": [_rule(code) for code in RULES],
                }},
                "invocations": [{
                    "executionSuccessful": not self.notifications,
                    "toolExecutionNotifications": self.notifications,
                }],
                "columnKind": "utf16CodeUnits",
                "results": self.results,
            }],
        }
        self.stream.write(json.dumps(log, indent=2) + "\n")


def _rule(code: str) -> dict[str, Any]:
    return {
        "id": code,
        "shortDescription": {"text": RULES[code].summary},
        "fullDescription": {"text": title(code)},
        "help": {"text": explanation(code), "markdown": DOCS[code]},
        "helpUri": f"{HOME}#{code.lower()}",
        "defaultConfiguration": {"level": "warning"},
        "properties": {"tags": ["memory-leak", "pytorch"]},
    }


def _uri(path: Path) -> str:
    """Relative to the working directory (the repository root in CI) when inside it, else a file URI."""
    try:
        return quote(path.absolute().relative_to(Path.cwd()).as_posix())
    except ValueError:
        return path.absolute().as_uri()


def _location(path: Path, line: int, start_column: int = 0) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": line}
    if start_column:
        region["startColumn"] = start_column
    return {"physicalLocation": {"artifactLocation": {"uri": _uri(path)}, "region": region}}


def _fix(path: Path, fix: SourceFix) -> dict[str, Any]:
    return {
        "description": {"text": fix.description},
        "artifactChanges": [{
            "artifactLocation": {"uri": _uri(path)},
            "replacements": [
                {"deletedRegion": {"charOffset": offset, "charLength": length}, "insertedContent": {"text": text}}
                for offset, length, text in fix.replacements
            ],
        }],
    }


def make(output_format: str, show_source: bool, quiet: bool) -> Output:
    """The output for the options given (``-q`` lists file names, whatever the format would be)."""
    kinds: dict[str, type[Output]] = {"text": Text, "grouped": Grouped, "json": Json, "github": GitHub, "sarif": Sarif}
    return (FileNames if quiet else kinds[output_format])(sys.stdout, show_source)
