"""Property tests over generated programs: the analysis never raises, and every rewrite it asks for
compiles, converges (a second analysis finds nothing left to fix) and adds no pyflakes message.

Two sources of programs: our own grammar (``programs.py``), dense in what the rules look at, and
hypothesmith's, which covers the whole Python grammar and finds crashes on constructs we never thought of.
The rewrite is checked here directly, not through the codemod's own verification, which would turn a
bad rewrite into a polite refusal.
"""
from __future__ import annotations

import ast

import hypothesmith
import pytest
from hypothesis import HealthCheck, event, given, reject, settings

from fixes.rewrite import rewrite
from flake8_weakglobals.analysis import analyze
from flake8_weakglobals.checking import reportable
from flake8_weakglobals.config import Settings
from flake8_weakglobals.findings import Finding
from flake8_weakglobals.rules import RULES
from conftest import pyflakes_messages
from flake8_weakglobals.vocabulary import Vocabulary
from programs import programs

RUNTIME = "flake8_weakglobals.runtime"


def fixable(text: str, tree: ast.Module) -> list[Finding]:
    return [finding for finding in reportable(analyze(tree, text, Vocabulary()), text, Settings()) if finding.fixable]




def test_every_rewrite_of_a_generated_program_compiles_converges_and_adds_no_pyflakes_message() -> None:
    reached: set[str] = set()
    fixed: set[str] = set()
    several = []

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(programs())
    def rewrites_are_sound(text: str) -> None:
        tree = ast.parse(text)  # the grammar promises valid Python
        reached.update(finding.code for finding in analyze(tree, text, Vocabulary()))
        findings = fixable(text, tree)
        event(f"{len(findings)} fixable findings")
        if not findings:
            return
        several.append(len(findings) > 1)
        fixed.update(finding.code for finding in findings)
        new = rewrite(text, tree, findings, RUNTIME)
        compile(new, "<rewritten>", "exec", dont_inherit=True)
        assert fixable(new, ast.parse(new)) == [], new
        assert not pyflakes_messages(new) - pyflakes_messages(text), new

    rewrites_are_sound()
    # Else the property could hold by never exercising a rule: each is reached, and each fixable one fixed,
    # in 7% to 40% of programs (WG006 is never fixable).
    assert reached == set(RULES) and fixed == set(RULES) - {"WG006"} and any(several)


PREAMBLE = "import torch\nfrom torch import nn\nregistry = {}\nclass Holder(nn.Module):\n    seen = set()\n"


@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # hypothesmith compiles what it generates
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
def test_the_analysis_never_raises_on_any_python_program(text: str) -> None:
    for program in (text, PREAMBLE + text):
        try:
            tree = ast.parse(program)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            reject()  # the grammar is wider than the compiler (e.g. "return" outside a function is fine here)
        analyze(tree, program, Vocabulary())


@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_node())
def test_the_analysis_never_raises_on_programs_built_from_syntax_nodes(text: str) -> None:
    try:
        tree = ast.parse(PREAMBLE + text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        reject()
    analyze(tree, PREAMBLE + text, Vocabulary())
