"""Property tests over generated programs: the analysis never raises, and every rewrite it asks for
compiles, converges (a second analysis finds nothing left to fix) and adds no pyflakes message.

Two sources of programs: our own grammar (``programs.py``), dense in what the rules look at, and
hypothesmith's, which covers the whole Python grammar and finds crashes on constructs we never thought of.
The rewrite is checked here directly, not through the codemod's own verification, which would turn a
bad rewrite into a polite refusal.

Last, a differential test over programs that run (``runnable_programs``): the codemod runs over a copy of
a few hundred of them as a user runs it, the originals run in one interpreter and the rewrites in another,
and every rewritten program must print what its original printed (``differential_harness``'s convention:
only ``[gc]`` lines may show entries whose key was collected as gone); every program it refuses must be
left byte for byte as it was, and every program the grammar marks as one it must refuse (a sole owner, a
method WeakIdList lacks, an escape) must be refused. Which families and rules are exercised rests on
``SHAPE_EXAMPLES``, programs of each forced shape, not on what a hypothesis release or a seed draws.
"""
from __future__ import annotations

import ast
import difflib
import re
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, event, example, given, reject, settings
from hypothesis import strategies as st

from fixes.rewrite import rewrite
from fixes.vendor import RuntimeLocation
from flake8_weakglobals.rules.analyze_module import analyze
from flake8_weakglobals.frontends.check_one_file import reportable
from flake8_weakglobals.frontends.config import Settings
from flake8_weakglobals.rules.findings import Finding
from flake8_weakglobals.rules.codes import RULES
from conftest import pyflakes_messages
from differential_harness import apply_codemod, differences, run_both, transcript_diff
from flake8_weakglobals.analysis.framework_types import Vocabulary
from programs import (
    OWNED_FILLS, RUNNABLE_HELPERS, RUNNABLE_PREAMBLE, SHAPES, expected_refusal, programs,
    runnable_program, runnable_programs,
)

RUNTIME = RuntimeLocation("flake8_weakglobals.runtime", None)
#: The same programs on every run and machine: derandomized, and no example database to replay from (each
#: test also suppresses at least the health check that times how long drawing took).
DETERMINISTIC = settings(derandomize=True, database=None, deadline=None)


def fixable(text: str, tree: ast.Module) -> list[Finding]:
    return [finding for finding in reportable(analyze(tree, text, Vocabulary()), tree, text, Settings()) if finding.fixable]




#: Rules whose findings the codemod leaves to a human: a workspace (the container is its objects' only
#: owner), finalizers that hold their object (a new callback), hooks whose handle is dropped (a place to
#: remove them), a long-lived instance's attribute or a module's name (a place to set it back).
NEVER_FIXED = {"WG007", "WG009", "WG010", "WG011", "WG012"}
#: One program per rule, each drawn through the same property as the generated ones: which rules a random
#: (or derandomized) draw reaches changes with the hypothesis release, so the coverage check rests on these.
RULE_EXAMPLES = {
    "WG001": "import torch\nfrom torch import nn\nregistry = {}\n\n\ndef remember(module: nn.Module, name: str):\n    registry[module] = name\n",
    "WG002": "import torch\nfrom torch import nn\nseen = set()\n\n\ndef remember(p: nn.Parameter):\n    seen.add(p)\n",
    "WG003": "import torch\nfrom torch import nn\n\n\nclass Holder(nn.Module):\n    seen = set()\n\n    def remember(self, t: torch.Tensor):\n        Holder.seen.add(t)\n",
    "WG004": "import weakref\nimport torch\ncache = weakref.WeakKeyDictionary()\n\n\ndef remember(t: torch.Tensor):\n    cache[t] = 1\n",
    "WG005": "import torch\nfrom torch import nn\nby_id = {}\n\n\ndef shape_of(weight: nn.Parameter):\n    if id(weight) not in by_id:\n        by_id[id(weight)] = weight.shape\n    return by_id[id(weight)]\n",
    "WG006": "import functools\nimport torch\nfrom torch import nn\n\n\n@functools.lru_cache(maxsize=None)\ndef device_of(module: nn.Module):\n    return next(module.parameters()).device\n",
    "WG007": "import torch\npool = []\n\n\ndef workspace():\n    pool.append(torch.empty(8))\n",
    "WG008": "import torch\nfrom torch import nn\nby_name = {}\n\n\ndef remember(name: str, module: nn.Module):\n    by_name[name] = module\n",
    "WG009": "import weakref\nimport torch\n\n\ndef track(t: torch.Tensor):\n    weakref.finalize(t, print, t)\n",
    "WG010": (
        "import torch\nfrom torch import nn\n\n\nclass Probe:\n    def __init__(self, model: nn.Module):\n"
        "        model.register_forward_hook(self.keep)\n\n    def keep(self, module, inputs, output):\n        self.last = output\n"
    ),
    "WG011": (
        "import torch\nfrom torch import nn\n\n\nclass Session:\n    def start(self, model: nn.Module):\n"
        "        self.model = model\n\n\nSESSION = Session()\n"
    ),
    "WG012": "import torch\nfrom torch import nn\nmodel = None\n\n\ndef load():\n    global model\n    model = nn.Linear(2, 2)\n",
    "several": "import torch\nfrom torch import nn\nnames = {}\nseen = set()\n\n\ndef remember(module: nn.Module, name: str):\n    names[module] = name\n    seen.add(module)\n",
}


def test_every_rewrite_of_a_generated_program_compiles_converges_and_adds_no_pyflakes_message() -> None:
    reached: set[str] = set()
    fixed: set[str] = set()
    several = []

    @settings(DETERMINISTIC, max_examples=300, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
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

    for text in RULE_EXAMPLES.values():
        rewrites_are_sound = example(text)(rewrites_are_sound)
    rewrites_are_sound()
    # Else the property could hold by never exercising a rule: the explicit examples reach every rule and fix
    # every fixable one, whatever the generated draws do.
    assert reached == set(RULES) and fixed == set(RULES) - NEVER_FIXED and any(several)


PREAMBLE = "import torch\nfrom torch import nn\nregistry = {}\nclass Holder(nn.Module):\n    seen = set()\n"


@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # hypothesmith compiles what it generates
@settings(DETERMINISTIC, max_examples=150, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
def test_the_analysis_never_raises_on_any_python_program(text: str) -> None:
    for program in (text, PREAMBLE + text):
        try:
            tree = ast.parse(program)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            reject()  # the grammar is wider than the compiler (e.g. "return" outside a function is fine here)
        analyze(tree, program, Vocabulary())


@pytest.mark.filterwarnings("ignore::SyntaxWarning")
# 50 examples: drawing from hypothesmith's node strategy, not our analysis (0.1 s for all of them), costs
# 15 s to 5 minutes per 100 examples depending on the draws, which the suite's budget cannot absorb.
@settings(DETERMINISTIC, max_examples=50, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_node())
def test_the_analysis_never_raises_on_programs_built_from_syntax_nodes(text: str) -> None:
    try:
        tree = ast.parse(PREAMBLE + text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        reject()
    analyze(tree, PREAMBLE + text, Vocabulary())


#: Two programs of every shape family of the runnable grammar (``programs.SHAPES``: containers of each kind and
#: place, lists and deques, caches on functions and methods, mixed-type operators, sole owners and objects
#: owned elsewhere), whatever hypothesis or the seeds draw: ``random.Random(seed)`` is the same on every
#: release, and the shape is forced, not drawn. Both the property below and the differential test run them.
SHAPE_SEEDS = (1, 2)
SHAPE_EXAMPLES = {f"{shape} #{seed}": runnable_program(seed, shape) for shape in SHAPES for seed in SHAPE_SEEDS}
#: What each shape's programs must contain (so a grammar edit cannot quietly empty a family).
SHAPE_MARKS = {
    "map": r"^registry_ = \{\}$|^(table|names|seen|cache) = \{\}$",
    "defaultdict on an instance": r"self\.\w+ = collections\.defaultdict\(int\)",
    "class set": r"^    \w+ = set\(\)$",
    "id map": r"\[id\(obj\)\] = ",
    "weak map": r"= weakref\.WeakKeyDictionary\(\)",
    "weak set": r"= weakref\.WeakSet\(\)",
    "list of modules": r"^\w+ = \[\]$",
    "list of layers that register themselves": r"\.append\(self\)",
    "list of tensors": r"= list\(\)$",
    "deque": r"= collections\.deque\(\)$",
    "deque-only step": r"\.(appendleft|popleft|rotate|extendleft|maxlen)\b",
    "map operators": r'print\("op ',
    "set operators": r'print\("op ',
    "sole owner": r"^def own_0\(",
    "sole owner, list": r"^def own_0\(",
    "owned elsewhere": r"^def kept_1\(",
    "cache function": r"^def describe\(",
    "cache method": r"^    def scaled\(",
}
#: Shapes the codemod must refuse, every program of them; of every other shape it must rewrite some.
REFUSED_SHAPES = {"deque-only step", "sole owner", "sole owner, list"}
#: Shapes whose fix is safe but which the proof refuses, with why (``docs/fix-safety.md`` lists them): the
#: differential test runs them, and does not ask for them to be rewritten.
SAFE_BUT_UNPROVEN = {
    "list of layers that register themselves": "`model.add_module(new, ...)` under a computed name lets go of the "
    "module registered under that name, if there was one; the proof cannot show that the name is new",
}
#: The rule codes the runnable grammar reaches (through the shape examples, whatever the draws).
RUNNABLE_RULES = {"WG001", "WG002", "WG003", "WG004", "WG005", "WG006"}


def test_every_shape_example_is_of_its_shape() -> None:
    assert set(SHAPE_MARKS) == set(SHAPES)
    for name, text in SHAPE_EXAMPLES.items():
        shape = name.rsplit(" #", 1)[0]
        assert re.search(SHAPE_MARKS[shape], text, re.MULTILINE), (name, text)
        assert (expected_refusal(text) is not None) == (shape in REFUSED_SHAPES), (name, expected_refusal(text))


#: How many runnable programs the differential test runs, and the seed of the first (program ``i`` is
#: ``runnable_program(DIFFERENTIAL_SEED + i)``: independent draws, the same text on every run).
DIFFERENTIAL_PROGRAMS = 200
DIFFERENTIAL_SEED = 20240917


def test_every_rewrite_of_a_runnable_program_compiles_converges_and_adds_no_pyflakes_message() -> None:
    reached: set[str] = set()

    @settings(DETERMINISTIC, max_examples=40, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.one_of(runnable_programs(), st.sampled_from(sorted(SHAPES)).flatmap(runnable_programs)))
    def rewrites_are_sound(text: str) -> None:
        tree = ast.parse(text)
        reached.update(finding.code for finding in analyze(tree, text, Vocabulary()))
        findings = fixable(text, tree)
        if findings:
            new = rewrite(text, tree, findings, RUNTIME)
            compile(new, "<rewritten>", "exec", dont_inherit=True)
            assert fixable(new, ast.parse(new)) == [], new
            assert not pyflakes_messages(new) - pyflakes_messages(text), new

    for text in SHAPE_EXAMPLES.values():
        rewrites_are_sound = example(text)(rewrites_are_sound)
    rewrites_are_sound()
    assert reached >= RUNNABLE_RULES, RUNNABLE_RULES - reached


def test_generated_programs_print_the_same_after_the_codemod(tmp_path: Path) -> None:
    drawn = list(dict.fromkeys(runnable_program(DIFFERENTIAL_SEED + number) for number in range(DIFFERENTIAL_PROGRAMS)))
    assert len(drawn) >= 190
    texts = drawn + list(SHAPE_EXAMPLES.values())
    originals, rewrites = tmp_path / "original", tmp_path / "rewritten"
    originals.mkdir()
    rewrites.mkdir()
    # generated_N is runnable_program(SEED + N); shape_N the Nth of SHAPE_EXAMPLES
    names = [f"generated_{number:03d}" for number in range(len(drawn))] + [f"shape_{number:02d}" for number in range(len(SHAPE_EXAMPLES))]
    shapes = dict(zip(names[len(drawn):], SHAPE_EXAMPLES))
    for name, text in zip(names, texts):
        (originals / f"{name}.py").write_text(text, encoding="utf-8")
        (rewrites / f"{name}.py").write_text(text, encoding="utf-8")
    # --unsafe-fixes: the cache shapes' rewrites are WG006's unsafe fix, whose behaviour this test checks too
    run = apply_codemod(rewrites, ["--runtime", "import", "--unsafe-fixes"])
    assert run.returncode in (0, 1) and not run.errors, f"the codemod failed (exit {run.returncode}):\n{run.stderr}"
    again = apply_codemod(rewrites, ["--runtime", "import", "--unsafe-fixes", "--check"])
    assert again.returncode in (0, 1) and "would fix 0 containers in 0 files" in again.stdout, f"a second run would change more:\n{again.stdout}"
    before, after = run_both([originals / f"{name}.py" for name in names], [rewrites / f"{name}.py" for name in names])

    failures, rewritten, refused, gc_checked = [], 0, 0, 0
    rewritten_shapes = set()
    for name, text in zip(names, texts):
        new_text = (rewrites / f"{name}.py").read_text(encoding="utf-8")
        original, rewrite = before[str(originals / f"{name}.py")], after[str(rewrites / f"{name}.py")]
        changed = new_text != text
        must_refuse = expected_refusal(text)
        # a must-refuse program is left byte for byte (below), and one of a refused shape, reported, with why
        in_refused_shape = name in shapes and shapes[name].rsplit(" #", 1)[0] in REFUSED_SHAPES
        if must_refuse is not None and (changed or (in_refused_shape and not run.reasons(rewrites / f"{name}.py"))):
            failures.append(f"=== {name}: the codemod must leave it as is ({must_refuse}), yet it "
                            + ("rewrote it" if changed else "gave no reason") + f"\n{text}")
        if changed and name in shapes:
            rewritten_shapes.add(shapes[name].rsplit(" #", 1)[0])
        rewritten += changed
        refused += bool(run.reasons(rewrites / f"{name}.py")) and not changed
        gc_checked += changed and "[gc] " in original
        assert "EXCEPTION:" not in original, f"the grammar drew a program that raises:\n{original}\n{text}"
        problems = differences(original, rewrite, rewrite_expected=changed)
        if problems:
            diff = "\n".join(difflib.unified_diff(text.splitlines(), new_text.splitlines(), "before", "after", lineterm=""))
            failures.append(f"=== {name}: " + "; ".join(problems[:3]) + f"\n{diff or text}\n--- transcripts\n{transcript_diff(original, rewrite)}")
    # Each failing program is kept, whole, for a rerun: python tests/differential_runner.py OUT.json FILE
    if failures:
        keep = Path(tmp_path, "failures.txt")
        keep.write_text("\n\n".join(failures), encoding="utf-8")
    assert not failures, f"{len(failures)} of {rewritten} rewritten programs print something else (all in {tmp_path}):\n\n" + "\n\n".join(failures[:3])
    # else the property could hold by rewriting nothing, refusing nothing, or never collecting anything
    assert rewritten >= len(texts) // 4 and refused >= len(texts) // 10 and gc_checked >= len(texts) // 10, (rewritten, refused, gc_checked)
    expected = set(SHAPES) - REFUSED_SHAPES - set(SAFE_BUT_UNPROVEN)
    assert rewritten_shapes - set(SAFE_BUT_UNPROVEN) == expected, f"shapes never rewritten: {expected - rewritten_shapes}"


@pytest.mark.parametrize(
    "what, form, template",
    [(what, form, template) for what, forms in OWNED_FILLS.items() for form, template in forms],
    ids=[f"{what}: {form}" for what, forms in OWNED_FILLS.items() for form, _ in forms],
)
def test_the_codemod_refuses_what_only_the_container_keeps(what: str, form: str, template: str, tmp_path: Path) -> None:
    """Every owned fill of the grammar as a whole program, whatever the draw picks: a list filled from the
    model, then with an object only it keeps. (``fresh(1)``, ``x.detach().to(...)`` of an unannotated ``t``
    and of ``model[0].weight`` were rewritten until the ownership analysis followed them.)"""
    put = "registry.append"
    code = template.replace("{n}", "0").replace("{m}", "").replace("{a}", "")
    code = re.sub(r"\{put:(.*)\}$", lambda match: f"{put}({match[1]})", code, flags=re.MULTILINE)
    source = "model.named_modules()" if what == "modules" else "model.named_parameters()"
    text = (RUNNABLE_PREAMBLE + "registry = []\n" + RUNNABLE_HELPERS + f"\n\ndef fill(model):\n    for name, obj in {source}:\n"
            f"        {put}(obj)\n\n\n{code}\n\n\ndef main():\n    model = build()\n    fill(model)\n    own_0(model)\n"
            "    print(len(registry))\n")
    (tmp_path / "program.py").write_text(text, encoding="utf-8")
    run = apply_codemod(tmp_path, ["--runtime", "import"])
    assert (tmp_path / "program.py").read_text(encoding="utf-8") == text and run.reasons(tmp_path / "program.py"), form
