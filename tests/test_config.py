"""Bad configuration, of any shape a TOML document can take: one line that names the file, exit 2.

Every shape below runs through the real ``weakglobals`` command line (a few through the codemod too); the
property test then writes generated TOML documents (any type at any level) and holds the loader to a model
of what is valid: a wrong shape is always refused, a right one with known-good values always accepted,
and nothing ever raises anything but the one-line error.
"""
from __future__ import annotations

import contextlib
import datetime
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import PINNING
from fixes.apply import build_parser
from flake8_weakglobals.frontends.config import KEYS, command_settings

LINT = [sys.executable, "-m", "flake8_weakglobals.frontends.command"]
FIX = [sys.executable, "-m", "fixes.apply", "--check"]

#: (pyproject.toml, what the one line says after the file's name)
BAD = {
    "tool is an integer": ("tool = 3\n", "`tool` must be a table ([tool]), not an integer"),
    "tool is a string": ('tool = "x"\n', "`tool` must be a table ([tool]), not a string"),
    "tool is an array": ("tool = [1, 2]\n", "`tool` must be a table ([tool]), not an array"),
    "tool is a date": ("tool = 1979-05-27\n", "`tool` must be a table ([tool]), not a date"),
    "weakglobals is an integer": ("[tool]\nweakglobals = 3\n", "[tool.weakglobals] must be a table, not an integer"),
    "weakglobals is a string": ('[tool]\nweakglobals = "WG001"\n', "[tool.weakglobals] must be a table, not a string"),
    "weakglobals is a boolean": ("tool.weakglobals = false\n", "[tool.weakglobals] must be a table, not a boolean"),
    "an array of tables": ("[[tool.weakglobals]]\nselect = []\n",
                           "[tool.weakglobals] must be a table, not an array of tables ([[tool.weakglobals]]); write [tool.weakglobals]"),
    "select is a string": ('[tool.weakglobals]\nselect = "WG001"\n',
                           '[tool.weakglobals] select must be an array of strings, not a string (write select = ["WG001"])'),
    "select holds an integer": ("[tool.weakglobals]\nselect = [1]\n", "[tool.weakglobals] select must be an array of strings; item 1 is an integer"),
    "ignore is a table": ("[tool.weakglobals]\nignore = {}\n", "[tool.weakglobals] ignore must be an array of strings, not a table"),
    "exclude holds an array": ('[tool.weakglobals]\nexclude = ["a", ["b"]]\n', "[tool.weakglobals] exclude must be an array of strings; item 2 is an array"),
    "extend-exclude is a boolean": ("[tool.weakglobals]\nextend-exclude = true\n", "[tool.weakglobals] extend-exclude must be an array of strings, not a boolean"),
    "extra-types is a float": ("[tool.weakglobals]\nextra-types = 1.5\n", "[tool.weakglobals] extra-types must be an array of strings, not a float"),
    "extra-types holds a time": ("[tool.weakglobals]\nextra-types = [07:32:00]\n", "[tool.weakglobals] extra-types must be an array of strings; item 1 is a time"),
    "extra-types holds a non-name": ('[tool.weakglobals]\nextra-types = ["not a name"]\n', "[tool.weakglobals] extra-types: 'not a name' is not a qualified class name"),
    "runtime is an integer": ("[tool.weakglobals]\nruntime = 1\n", "[tool.weakglobals] runtime must be one of 'inline', 'vendor', 'import', not an integer"),
    "runtime is an array": ('[tool.weakglobals]\nruntime = ["vendor"]\n', "[tool.weakglobals] runtime must be one of 'inline', 'vendor', 'import', not an array"),
    "runtime is unknown": ('[tool.weakglobals]\nruntime = "vendored"\n', "[tool.weakglobals] runtime must be one of 'inline', 'vendor', 'import', not 'vendored'"),
    "census-accept is a string": ('[tool.weakglobals]\ncensus-accept = "pkg.CACHE"\n',
                                  '[tool.weakglobals] census-accept must be an array of strings, not a string (write census-accept = ["pkg.CACHE"])'),
    "census-accept holds a non-name": ('[tool.weakglobals]\ncensus-accept = ["CACHE"]\n',
                                       "[tool.weakglobals] census-accept: 'CACHE' is not a dotted name such as 'mypkg.module.CACHE'"),
    "select is empty": ("[tool.weakglobals]\nselect = []\n",
                        "[tool.weakglobals] select is empty, which would select no code: remove it for the default codes"),
    "extend-select is not a WG code": ('[tool.weakglobals]\nextend-select = ["B019"]\n', "[tool.weakglobals] extend-select: 'B019' is not a WG code or prefix"),
    "select is not a WG code": ('[tool.weakglobals]\nselect = ["E501"]\n', "[tool.weakglobals] select: 'E501' is not a WG code or prefix"),
    "unsafe-fixes is a string": ('[tool.weakglobals]\nunsafe-fixes = "yes"\n', "[tool.weakglobals] unsafe-fixes must be true or false, not a string"),
    "an unknown key": ("[tool.weakglobals]\ncolour = true\n", "[tool.weakglobals] has unknown key 'colour'"),
    "not TOML": ("[tool.weakglobals\n", "cannot read: "),
}


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*command, "."], capture_output=True, text=True, cwd=cwd, env={**os.environ, "NO_COLOR": "1"})


@pytest.mark.parametrize("name", sorted(BAD))
def test_each_bad_shape_is_one_line_naming_the_file_and_exit_2(name: str, tmp_path: Path) -> None:
    text, message = BAD[name]
    (tmp_path / "pyproject.toml").write_text(text)
    (tmp_path / "pins.py").write_text(PINNING)
    for command in (LINT, FIX) if name in ("tool is an integer", "an array of tables", "runtime is unknown") else (LINT,):
        done = run(command, tmp_path)
        assert (done.returncode, done.stdout) == (2, ""), done.stderr
        assert done.stderr.startswith(f"error: {tmp_path / 'pyproject.toml'}: {message}") and done.stderr.count("\n") == 1, done.stderr


def test_undecodable_configuration_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_bytes(b"[tool.weakglobals]\nselect = ['\xff']\n")
    done = run(LINT, tmp_path)
    assert done.returncode == 2 and done.stderr.startswith(f"error: {tmp_path / 'pyproject.toml'}: cannot read: 'utf-8' codec")
    assert done.stderr.count("\n") == 1


# --- the property: any TOML value at any level -------------------------------------------------------------


def toml(value: Any) -> str:
    """A TOML value (inline form) for what ``tomllib`` gives back."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, (int, datetime.date, datetime.time)):
        return value.isoformat() if not isinstance(value, int) else str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, list):
        return "[" + ", ".join(map(toml, value)) + "]"
    return "{" + ", ".join(f"{toml(key)} = {toml(item)}" for key, item in value.items()) + "}"


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=6)
_SCALARS = st.one_of(
    st.booleans(), st.integers(-(2**63), 2**63 - 1), st.floats(), _TEXT,
    st.datetimes(), st.dates(), st.times(), st.sampled_from(["vendor", "import", "WG001", "mylib.Node"]),
)
ANY = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3), max_leaves=6)
#: Values each key accepts; anything else drawn for a key must be refused when its shape is wrong.
GOOD: dict[str, list[Any]] = {
    "select": [["WG001"], ["WG"]], "extend-select": [["WG007"], []], "ignore": [["WG006"], []], "exclude": [["generated/*"], []],
    "extend-exclude": [["*_pb2.py", "./scratch.py"]], "extra-types": [["mylib.graph.Node"], []],
    "extra-module-bases": [["mylib.layers.Base"], []], "runtime": ["vendor", "import"], "unsafe-fixes": [True, False],
    "census-accept": [["mylib.store.CACHE"], []],
}
_KEY = st.sampled_from([*KEYS, "colour"])
_TABLE = st.dictionaries(_KEY, ANY, max_size=3) | st.dictionaries(_KEY, st.sampled_from([value for values in GOOD.values() for value in values]), max_size=3)
DOCUMENTS = st.one_of(
    st.fixed_dictionaries({"tool": ANY}),
    st.fixed_dictionaries({"tool": st.fixed_dictionaries({"weakglobals": ANY})}),
    st.fixed_dictionaries({"tool": st.fixed_dictionaries({"weakglobals": _TABLE})}),
)


def expected(document: dict[str, Any]) -> str:
    """``"refused"``, ``"accepted"``, or ``"either"`` (strings whose contents the model does not judge)."""
    tool = document["tool"]
    if not isinstance(tool, dict):
        return "refused"
    table = tool.get("weakglobals")
    if table is None:
        return "accepted"
    if not isinstance(table, dict) or set(table) - set(KEYS):
        return "refused"
    verdict = "accepted"
    for key, value in table.items():
        if key == "unsafe-fixes":
            if not isinstance(value, bool):
                return "refused"
            continue
        if key == "runtime":
            if not isinstance(value, str):
                return "refused"
        elif not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            return "refused"
        if key == "select" and value == []:
            return "refused"  # it would select no code: a one-line error, never silently the defaults
        if value not in GOOD[key]:
            verdict = "either"
    return verdict


def document_text(document: dict[str, Any]) -> str:
    tool = document["tool"]
    if isinstance(tool, dict) and isinstance(tool.get("weakglobals"), dict):
        return "[tool.weakglobals]\n" + "".join(f"{json.dumps(key)} = {toml(value)}\n" for key, value in tool["weakglobals"].items())
    return f"tool = {toml(tool)}\n"


@settings(max_examples=300, deadline=None)
@given(DOCUMENTS)
def test_any_toml_document_is_accepted_or_refused_in_one_line(document: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        config = Path(directory) / "pyproject.toml"
        config.write_text(document_text(document), encoding="utf-8")
        arguments = build_parser().parse_args([directory])
        errors = io.StringIO()
        with contextlib.redirect_stderr(errors):
            try:
                command_settings(arguments)
                outcome = "accepted"
            except SystemExit as exit:
                assert exit.code == 2
                outcome = "refused"
    verdict = expected(document)
    assert verdict in ("either", outcome), (verdict, outcome, errors.getvalue())
    if outcome == "refused":
        assert errors.getvalue().startswith(f"error: {config}: ") and errors.getvalue().count("\n") == 1, errors.getvalue()


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["select", "ignore", "extra-types", "exclude"]), st.text(st.characters(exclude_categories=["Cs"])))
def test_a_suggested_fix_is_one_toml_line_that_means_the_value_given(key: str, value: str) -> None:
    """``key = "text"`` where an array belongs: the suggestion, pasted in, is that text as the one item."""
    with tempfile.TemporaryDirectory() as directory:
        config = Path(directory) / "pyproject.toml"
        escaped = "".join(c if c.isalnum() else f"\\U{ord(c):08x}" for c in value)  # TOML's own escapes, not the code's
        config.write_text(f'[tool.weakglobals]\n{key} = "{escaped}"\n', encoding="utf-8")
        errors = io.StringIO()
        with contextlib.redirect_stderr(errors), pytest.raises(SystemExit):
            command_settings(build_parser().parse_args([directory]))
    message = errors.getvalue()
    assert message.count("\n") == 1 and message.endswith("])\n"), message
    suggested = message[message.index("(write ") + len("(write "):-2]
    assert tomllib.loads(suggested) == {key: [value]}
