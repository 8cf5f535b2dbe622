"""Every rewrite as a before/after pair, run through the codemod's real pipeline (analysis, libcst rewrite,
verification). Each pair is also checked for idempotency, compilation and pyflakes."""
from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from conftest import HERE, pyflakes_messages
from fixes.job import process
from flake8_weakglobals.frontends.config import Settings

PAIRS = sorted((HERE / "fixtures" / "fix").glob("*.in.py"))
IMPORT_MODE = Settings(runtime="import")  # a fixed import line, wherever the test runs


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


def test_every_edit_kind_has_a_pair() -> None:
    from flake8_weakglobals.rules.findings import EditKind

    text = "".join(path.read_text() for path in PAIRS)
    assert "defaultdict(" in text and "fromkeys(" in text and "id(" in text and "Dict[" in text
    assert "{" in text and "set()" in text and len(EditKind) == 5


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
