"""The analysis over every file of the installed torch and deepspeed: nothing raises, and it finds exactly
the findings whose verdicts the README's "Sweeps" section records (a precision regression test)."""
from __future__ import annotations

import ast

import pytest

from conftest import installed_package
from flake8_weakglobals.analysis import analyze
from flake8_weakglobals.vocabulary import Vocabulary, may_mention_framework

EXPECTED = {
    "torch": {
        ("_subclasses/fake_tensor.py", 197, "WG004"),
        ("_utils.py", 276, "WG002"),
        ("ao/quantization/fx/utils.py", 250, "WG006"),
    },
    "deepspeed": {
        ("inference/quantization/layers.py", 15, "WG005"),
        ("inference/v2/allocator.py", 15, "WG003"),
        ("ops/transformer/inference/ds_attention.py", 18, "WG003"),
        ("ops/transformer/inference/ds_mlp.py", 16, "WG003"),
        ("utils/debug.py", 12, "WG001"),
        ("utils/debug.py", 13, "WG001"),
    },
}


@pytest.mark.parametrize("package", sorted(EXPECTED))
def test_every_file_of_the_package_is_analysed_without_error(package: str) -> None:
    root = installed_package(package)
    found, analysed, failures = set(), 0, []
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue  # torch ships a few files in newer Python syntax
        try:
            findings = analyze(tree, source, Vocabulary())
        except Exception as error:  # collected, so one run lists every failure
            failures.append(f"{path}: {error!r}")
            continue
        analysed += 1
        found |= {(path.relative_to(root).as_posix(), finding.line, finding.code) for finding in findings}
        if findings:
            assert may_mention_framework(source, Vocabulary()), f"{path}: the prefilter would have skipped it"
    assert failures == []
    assert analysed > 500
    assert found == EXPECTED[package]
