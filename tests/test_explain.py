"""The rule documentation has one source, ``flake8_weakglobals/rules/docs.py``: ``weakglobals --explain``
prints it, the SARIF log carries it, and the rule sections of ``docs/rules.md`` must say exactly the same."""
from __future__ import annotations

import re
import subprocess
import sysconfig
from pathlib import Path

import pytest

from conftest import REPO
from flake8_weakglobals.rules.docs import DOCS, explanation
from flake8_weakglobals.rules.codes import INTERNAL_ERROR, RULES

WEAKGLOBALS = str(Path(sysconfig.get_path("scripts")) / "weakglobals")  # this environment's, whatever PATH says

#: The README's sections that became pages under docs/: the entries still link to them as ``(#fix-safety)``.
PAGE_OF_SECTION = {
    "rules": "rules.md", "the-runtime": "runtime.md", "fix-safety": "fix-safety.md", "robustness": "robustness.md",
    "configuration": "configuration.md", "census-pytest---weakglobals": "census.md", "architecture": "architecture.md",
    "benchmarks": "benchmarks.md", "accuracy": "accuracy.md", "faq": "faq.md", "development": "development.md",
}


def as_on_the_rules_page(entry: str) -> str:
    """An entry as ``docs/rules.md`` shows it: a link to a section that is now a page of its own points at the
    page (``(#fix-safety)`` -> ``(fix-safety.md)``); every other byte is the entry's."""
    return re.sub(r"\]\(#([\w-]+)\)", lambda link: f"]({PAGE_OF_SECTION.get(link[1], '#' + link[1])})", entry)


def rules_page_sections() -> dict[str, str]:
    """Each ``### WG00N`` section of ``docs/rules.md``, up to the next heading or the end of the page."""
    text = (REPO / "docs" / "rules.md").read_text()
    return {code: body.rstrip("\n") + "\n" for code, body in re.findall(r"^### (WG\d{3})\n\n(.*?)(?=^##|\Z)", text, flags=re.M | re.S)}


def test_the_rules_page_sections_are_the_rule_docs() -> None:
    sections = rules_page_sections()
    assert sorted(sections) == sorted(DOCS) and set(DOCS) == {*RULES, INTERNAL_ERROR}  # every rule, and WG000
    for code, body in DOCS.items():
        assert sections[code] == as_on_the_rules_page(body), (
            f"docs/rules.md's ### {code} differs from flake8_weakglobals/rules/docs.py: edit the module, copy it over")


@pytest.mark.parametrize("code", RULES)
def test_every_entry_is_complete(code: str) -> None:
    for part in ("**Why it matters**", "**Example**", "**Fix**", "**Fix safety**", "**Known false positives**"):
        assert f"\n- {part}: " in DOCS[code], (code, part)


def test_explain_prints_the_entry_without_the_readmes_own_links() -> None:
    done = subprocess.run([WEAKGLOBALS, "--explain", "wg001"], capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, explanation("WG001"), "")
    assert done.stdout.startswith("WG001 (flake8-weakglobals)\n\n*Module-level dict")
    assert "(see [fix safety](#fix-safety))" in DOCS["WG001"] and "(see fix safety)" in done.stdout


def test_explaining_an_unknown_code_is_a_usage_error() -> None:
    done = subprocess.run([WEAKGLOBALS, "--explain", "WG999"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[-1] == f"weakglobals: error: --explain: 'WG999' is not a rule (known: {', '.join(DOCS)})"


def test_wg000_which_the_rules_page_lists_is_explained_too() -> None:
    done = subprocess.run([WEAKGLOBALS, "--explain", "WG000"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("WG000 (flake8-weakglobals)\n\n*The analysis itself failed on this file")
