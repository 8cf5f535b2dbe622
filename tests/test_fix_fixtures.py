"""Every rewrite as a before/after pair, run through the codemod's real pipeline (analysis, libcst rewrite,
verification). Each pair is also checked for idempotency, compilation and pyflakes."""
from __future__ import annotations

import ast
import dataclasses
import shutil
from pathlib import Path

import pytest

from conftest import HERE, pyflakes_messages
from fixes.job import process
from fixes.rewrite import rewrite
from fixes.vendor import RuntimeLocation
from flake8_weakglobals.frontends.config import Settings
from flake8_weakglobals.rules.findings import EditKind, Span

PAIRS = sorted((HERE / "fixtures" / "fix").glob("*.in.py"))
#: A fixed import line, wherever the test runs; the pairs show every edit, the unsafe fixes' too (that they
#: are left by default is test_fix_cli's).
IMPORT_MODE = Settings(runtime="import", unsafe_fixes=True)
RUNTIME = RuntimeLocation("flake8_weakglobals.runtime", None)  # where IMPORT_MODE imports the runtime from


@pytest.mark.parametrize("before", PAIRS, ids=lambda path: path.name.removesuffix(".in.py"))
def test_rewrite_matches_the_expected_output(before: Path, tmp_path: Path) -> None:
    after = before.with_name(before.name.replace(".in.py", ".out.py"))
    subject = tmp_path / "subject.py"
    shutil.copy(before, subject)

    result = process(subject, IMPORT_MODE)
    assert result.error is None
    expected = after.read_text()
    assert (result.new_text if result.changed else before.read_text()) == expected

    subject.write_text(expected)
    again = process(subject, IMPORT_MODE)
    assert not again.changed and again.error is None, "a second run must change nothing"
    compile(expected, str(after), "exec")
    assert not (pyflakes_messages(expected) - pyflakes_messages(before.read_text())), "pyflakes must report nothing new"


#: Every kind of edit, on each shape of code it rewrites that a pair must show.
EDIT_SHAPES = {
    (EditKind.WRAP, "{"),
    (EditKind.RENAME_CALLEE, "set()"),
    (EditKind.RENAME_CALLEE, ".fromkeys("),
    (EditKind.DEFAULT_FACTORY, "defaultdict("),
    (EditKind.RENAME_GENERIC, "Dict"),
    (EditKind.UNWRAP_ID, "id("),
}


def source_of(text: str, span: Span) -> str:
    """The code an edit rewrites (a span's columns are UTF-8 byte offsets)."""
    lines = [line.encode() for line in text.splitlines(keepends=True)[span.line - 1 : span.end_line]]
    return b"".join(lines)[span.col : sum(map(len, lines[:-1])) + span.end_col].decode()


def test_every_edit_kind_has_a_pair(tmp_path: Path) -> None:
    """Each shape of ``EDIT_SHAPES`` is rewritten in some pair, and that pair's ``.out.py`` holds the edit: the
    rewrite of its fixed findings with that one edit left out is not the expected output (so a shape only in a
    noqa'd or refused container, or an edit that changes nothing, is no pair)."""
    assert {kind for kind, _ in EDIT_SHAPES} == set(EditKind)
    shown: set[tuple[EditKind, str]] = set()
    for before in PAIRS:
        subject = tmp_path / before.name
        shutil.copy(before, subject)
        result = process(subject, IMPORT_MODE)
        assert result.error is None, before.name
        if not result.changed:
            continue  # refused or silenced: no edit to show
        text, expected = before.read_text(), before.with_name(before.name.replace(".in.py", ".out.py")).read_text()
        tree = ast.parse(text)
        assert rewrite(text, tree, result.fixed, RUNTIME) == expected, f"{before.name}: the rewrite compared below is not the pair's"
        for finding in result.fixed:
            for edit in finding.edits:
                without = [dataclasses.replace(each, edits=tuple(e for e in each.edits if e is not edit)) for each in result.fixed]
                if not any(each.edits for each in without):
                    continue  # the pair's only edit: no rewrite to compare without it
                if rewrite(text, tree, without, RUNTIME) != expected:
                    code = source_of(text, edit.span)
                    shown.update((kind, shape) for kind, shape in EDIT_SHAPES if kind is edit.kind and shape in code)
    assert EDIT_SHAPES <= shown, sorted((kind.name, shape) for kind, shape in EDIT_SHAPES - shown)


@pytest.mark.parametrize("before", PAIRS, ids=lambda path: path.name.removesuffix(".in.py"))
def test_only_edited_lines_and_imports_change(before: Path) -> None:
    """Every line the rewrite changes holds an edited expression or an import; at most one line is added
    that replaces nothing (the runtime import)."""
    import difflib

    from flake8_weakglobals.rules.analyze_module import analyze

    old = before.read_text().splitlines()
    new = before.with_name(before.name.replace(".in.py", ".out.py")).read_text().splitlines()
    tree = ast.parse(before.read_text())
    edited = {
        line
        for finding in analyze(tree, before.read_text())
        for edit in finding.edits
        for line in range(edit.span.line, edit.span.end_line + 1)
    }
    statements = [node for top in tree.body for node in (ast.walk(top) if isinstance(top, ast.If) else [top])]  # TYPE_CHECKING
    imports = {
        line for node in statements if isinstance(node, (ast.Import, ast.ImportFrom)) for line in range(node.lineno, node.end_lineno + 1)
    }
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    kept_old = {block.a + offset for block in matcher.get_matching_blocks() for offset in range(block.size)}
    kept_new = {block.b + offset for block in matcher.get_matching_blocks() for offset in range(block.size)}
    changed = {index + 1 for index in range(len(old)) if index not in kept_old and old[index].strip()}
    assert changed <= edited | imports, (before.name, sorted(changed - edited - imports))
    added = [new[index] for index in range(len(new)) if index not in kept_new and new[index].strip()]
    runtime_imports = [line for line in added if "flake8_weakglobals.runtime import " in line]
    assert len(runtime_imports) <= 1 and len(added) - len(runtime_imports) <= len(changed), (before.name, added)
