"""The safety net behind every write: a rewrite that would not compile, would not converge, or would add
pyflakes messages is refused, and the file is left as it was."""
from __future__ import annotations

from pathlib import Path

import pytest

import fixes.job
import fixes.rewrite
from conftest import PINNING
from flake8_weakglobals.frontends.config import Settings


@pytest.mark.parametrize(
    "broken, reason",
    [
        (lambda text: text.replace("names = _WeakIdMap()", "names = _WeakIdMap("), "would not compile"),
        (lambda text: PINNING, "a second run would rewrite names again"),
        (lambda text: "import os\n" + text, "would add pyflakes messages: 'os' imported but unused"),
    ],
    ids=["syntax", "not idempotent", "pyflakes"],
)
def test_a_bad_rewrite_is_refused(broken, reason: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = fixes.rewrite.rewrite
    monkeypatch.setattr(fixes.rewrite, "rewrite", lambda text, tree, findings, *rest: broken(real(text, tree, findings, *rest)))
    module = tmp_path / "pins.py"
    module.write_text(PINNING)
    result = fixes.job.process(module, Settings(runtime="import"))
    assert not result.changed and reason in (result.error or "")
    assert result.error_line == 3 and module.read_text() == PINNING


def test_an_internal_error_is_reported_on_its_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(*args: object) -> None:
        raise ValueError("boom")

    monkeypatch.setattr(fixes.job, "check_file", explode)
    result = fixes.job.process(tmp_path / "any.py", Settings())
    assert result.error == "internal error in flake8-weakglobals, please report it: ValueError('boom')"
