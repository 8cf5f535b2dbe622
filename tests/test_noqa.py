"""``NoqaMap`` agrees with flake8 itself on what ``# noqa`` silences, case by case."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from flake8_weakglobals.source.noqa import NoqaMap

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
    "whole-file": "# flake8: noqa\nx = {}\n",
    "whole-file-with-codes": "# flake8: noqa: WG001\nx = {}\n",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_agrees_with_flake8(case: str, tmp_path: Path) -> None:
    source = "from torch import nn\n" + CASES[case] + FILL
    path = tmp_path / "case.py"
    path.write_text(source)
    done = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "WG", str(path)], capture_output=True, text=True
    )
    reported_by_flake8 = "WG001" in done.stdout
    line = next(number for number, text in enumerate(source.splitlines(), 1) if "x = " in text)
    assert (not NoqaMap(source).silences("WG001", line)) == reported_by_flake8
