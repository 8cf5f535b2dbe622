"""``NoqaMap`` agrees with flake8 itself on what ``# noqa`` silences, case by case."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from flake8_weakglobals.source.noqa import NoqaMap
from flake8_weakglobals.syntax.scopes import top_level_spans

FILL = "def fill(m: nn.Module):\n    x[m] = 1\n"
CASES = {
    "none": "x = {}\n",
    "bare": "x = {}  # noqa\n",
    "code": "x = {}  # noqa: WG001\n",
    "code-no-space": "x = {}  # noqa:WG001\n",
    "prefix": "x = {}  # NOQA: WG\n",
    "other-code": "x = {}  # noqa: WG002\n",
    "list": "x = {}  # noqa: E501,WG001\n",
    "inside-brackets": "x = dict(\n    a=1,  # noqa: WG001\n)\n",
    "closing-bracket": "x = {\n}  # noqa: WG001\n",
    "backslash": "x = \\\n    {}  # noqa: WG001\n",
    "after-string": 's = """\n"""; x = {}  # noqa: WG001\n',
    "string-after-on-its-line": 'x = {}; s = """ # noqa: WG001\n"""\n',
    "string-before-on-its-line": 's = """ # noqa: WG001\n"""; x = {}\n',
    "inside-an-earlier-string": 's = """\n# noqa: WG001\n"""\nx = {}\n',
    "comment-line-above": "# noqa: WG001\nx = {}\n",
    "whole-file": "# flake8: noqa\nx = {}\n",
    "whole-file-with-codes": "# flake8: noqa: WG001\nx = {}\n",
}
#: Checked in the same flake8 run as each case, with no ``# noqa``: its finding shows that the plugin loaded
#: and ran, so a case that reports nothing is silenced by its comment, not by a plugin that never ran.
CONTROL = "from torch import nn\nx = {}\n" + FILL
CONTROL_FINDING = "control.py:2:WG001"
FORMAT = "%(path)s:%(row)d:%(code)s"  # one finding per line, as compared below


@pytest.mark.parametrize("case", sorted(CASES))
def test_agrees_with_flake8(case: str, tmp_path: Path) -> None:
    source = "from torch import nn\n" + CASES[case] + FILL
    (tmp_path / "case.py").write_text(source)
    (tmp_path / "control.py").write_text(CONTROL)
    done = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--jobs=1", "--select", "WG", f"--format={FORMAT}", "case.py", "control.py"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    # A plugin that fails to load stops flake8 with the error on stderr; exit 1 here is flake8 reporting findings.
    assert (done.returncode, done.stderr) == (1, ""), done.stderr
    reported = set(done.stdout.splitlines())
    assert CONTROL_FINDING in reported, f"the plugin did not run: {done.stdout!r}"
    line = next(number for number, text in enumerate(source.splitlines(), 1) if "x = " in text)
    expected = {CONTROL_FINDING} if NoqaMap(source, top_level_spans(ast.parse(source))).silences("WG001", line) else {CONTROL_FINDING, f"case.py:{line}:WG001"}
    assert reported == expected
