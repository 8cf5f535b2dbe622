"""One file through the codemod: read, analyse, rewrite, verify. Never writes.

It runs in worker processes, so it takes and returns plain data. Verification is the safety net behind
every write: the result compiles, a second analysis finds nothing left to fix (the fix is idempotent),
and pyflakes reports nothing that it did not report before.
"""
from __future__ import annotations

import ast
import collections
import dataclasses
import gc
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from flake8_weakglobals.frontends.check_one_file import check_file, internal_error, reportable
from flake8_weakglobals.frontends.config import Settings
from flake8_weakglobals.index.project import context_for
from flake8_weakglobals.rules.analyze_module import analyze
from flake8_weakglobals.rules.codes import UNSAFE_FIX_CODES, UNSAFE_FIX_REASONS
from flake8_weakglobals.rules.findings import Finding
from flake8_weakglobals.source import parse_once

from .inline import BlockEdit, InlineError
from .lines import lines_of
from .outside import refuse_used_elsewhere
from .own_source import reads_its_own_source
from .references import imported_names
from .placement import existing_runtime_import, place
from .vendor import Unresolvable


@dataclass(frozen=True)
class FileResult:
    path: Path
    fixed: tuple[Finding, ...] = ()
    left: tuple[Finding, ...] = ()  # not fixable: ``fix_reason`` says why
    old_text: str = ""
    new_text: Optional[str] = None  # None: nothing to write
    encoding: str = "utf-8"
    digest: bytes = b""  # of the bytes the rewrite was computed from
    runtime_copy: Optional[Path] = None
    runtime_names: frozenset[str] = frozenset()  # what the rewritten file takes from the runtime
    inline_lines: int = 0  # what the inline runtime adds to the file (its block, written or grown)
    error: Optional[str] = None
    error_line: int = 1

    @property
    def changed(self) -> bool:
        return self.new_text is not None


_LINE_NUMBER = re.compile(r"\bline \d+")


class VerificationError(Exception):
    pass


def process(path: Path, settings: Settings) -> FileResult:
    """The whole pipeline for one file; any failure becomes an error on the result, never an exception.

    The cycle collector is paused meanwhile: a file's trees hold no cycles, but millions of their nodes
    would make it rescan them again and again (a 10 MB file took 1.6x as long); what the file leaves for
    later files is then kept out of its reach (``parse_once.settle_survivors``)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _process(path, settings)
    except Exception as error:  # a bug of ours: reported on that file, the run goes on
        return FileResult(path, error=internal_error(error))
    finally:
        if collecting:
            parse_once.settle_survivors()
            gc.enable()


def _process(path: Path, settings: Settings) -> FileResult:
    checked = check_file(path, settings)
    if checked.error is not None or checked.tree is None or checked.source is None:
        return FileResult(path, error=checked.error, error_line=checked.error_line)
    left = tuple(finding for finding in checked.findings if not finding.fixable)
    fixable = [finding for finding in checked.findings if finding.fixable]
    if not settings.unsafe_fixes:
        unsafe = [finding for finding in fixable if finding.code in UNSAFE_FIX_CODES]
        fixable = [finding for finding in fixable if finding.code not in UNSAFE_FIX_CODES]
        left = tuple(sorted((*left, *map(_unsafe_left, unsafe)), key=lambda finding: (finding.line, finding.col)))
    else:
        fixable = [_unsafe_asked(finding) if finding.code in UNSAFE_FIX_CODES else finding for finding in fixable]
    own_source = reads_its_own_source(checked.tree, checked.source.text, imported_names(checked.tree)) if fixable else None
    if own_source is not None:
        left = tuple(sorted((*left, *(_left_because(finding, own_source) for finding in fixable)), key=lambda finding: (finding.line, finding.col)))
        fixable = []
    if fixable:
        fixable, used_elsewhere = refuse_used_elsewhere(path, fixable, settings.vocabulary)
        left = tuple(sorted((*left, *used_elsewhere), key=lambda finding: (finding.line, finding.col)))
    if not fixable:
        return FileResult(path, left=left)
    from .rewrite import RewriteError, rewrite  # libcst loads only for files that need it

    names = {name for finding in fixable for name in finding.runtime_names}
    first_edit = min((edit.span.line for finding in fixable for edit in finding.edits), default=fixable[0].line)
    try:
        runtime = place(path, checked.tree, lines_of(checked.source.text), names, first_edit, settings.runtime)
    except (Unresolvable, InlineError) as error:
        return FileResult(path, left=left, error=f"left unchanged: {error}", error_line=fixable[0].line)
    existing = existing_runtime_import(checked.tree)
    names |= {alias.name for alias in existing.names} if existing else set()
    inline = runtime if isinstance(runtime, BlockEdit) else None
    try:
        new_text = rewrite(checked.source.text, checked.tree, fixable, runtime)
        _verify(path, checked.tree, new_text, settings)
    except (RewriteError, VerificationError) as error:
        return FileResult(path, left=left, error=f"left unchanged: {error}", error_line=fixable[0].line)
    return FileResult(
        path,
        fixed=tuple(fixable),
        left=left,
        old_text=checked.source.text,
        new_text=new_text,
        encoding=checked.source.encoding,
        digest=checked.source.digest,
        runtime_copy=None if isinstance(runtime, BlockEdit) else runtime.copy,
        runtime_names=frozenset(inline.holds if inline else names),
        inline_lines=inline.added if inline else 0,
    )


def _left_because(finding: Finding, reason: str) -> Finding:
    """The finding as one the codemod leaves as it is, for ``reason``."""
    return dataclasses.replace(finding, fix_reason=reason, edits=(), runtime_names=frozenset(), proof=())


def _unsafe_asked(finding: Finding) -> Finding:
    """An unsafe fix made because it was asked for: its proof says first what the user vouched for."""
    vouched = f"made because --unsafe-fixes asks for it, although {UNSAFE_FIX_REASONS[finding.code].split('; ')[0]}"
    return dataclasses.replace(finding, proof=(vouched, *finding.proof))


def _unsafe_left(finding: Finding) -> Finding:
    """A fix the codemod makes only when asked: left, with what the user must check before asking."""
    reason = UNSAFE_FIX_REASONS[finding.code]
    return dataclasses.replace(finding, fix_reason=reason, edits=(), runtime_names=frozenset())


def _verify(path: Path, before: ast.Module, text: str, settings: Settings) -> None:
    try:  # compiled from text: compiling a tree recurses in Python, and fails on nesting the text allows
        with warnings.catch_warnings():  # about the user's code, at the rewrite's line numbers: noise here
            warnings.simplefilter("ignore")
            compile(text, str(path), "exec", dont_inherit=True)
            after = ast.parse(text)
    except SyntaxError as error:
        raise VerificationError(f"the rewrite would not compile (line {error.lineno}: {error.msg})") from None
    found = reportable(analyze(after, text, settings.vocabulary, context_for(path)), after, text, settings)
    fixable = [finding for finding in found if finding.fixable and (settings.unsafe_fixes or finding.code not in UNSAFE_FIX_CODES)]
    again, _ = refuse_used_elsewhere(path, fixable, settings.vocabulary)
    if again:
        raise VerificationError(f"a second run would rewrite {again[0].name} again (line {again[0].line})")
    added = _pyflakes(after, path)
    if added:
        added -= _pyflakes(before, path)
    if added:
        raise VerificationError(f"the rewrite would add pyflakes messages: {', '.join(sorted(added))}")


def _pyflakes(tree: ast.Module, path: Path) -> collections.Counter[str]:
    from pyflakes.checker import Checker

    try:
        messages = Checker(tree, filename=str(path)).messages
    except RecursionError:  # pyflakes recurses once per nesting level
        raise VerificationError("the file is nested too deeply for pyflakes to check the rewrite") from None
    # Without line numbers: "redefinition of unused 'f' from line 9" is not new when an import moved it to 10.
    return collections.Counter(_LINE_NUMBER.sub("line N", message.message % message.message_args) for message in messages)
