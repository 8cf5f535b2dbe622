"""Each rule against its fixture: positives and negatives side by side, expectations inline."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import LINT_FIXTURES, expected_findings
from flake8_weakglobals.rules.analyze_module import analyze
from flake8_weakglobals.rules.codes import RULES, advice
from flake8_weakglobals.analysis.framework_types import Vocabulary
from flake8_weakglobals.index.project import context_for

FIXTURES = sorted(LINT_FIXTURES.glob("*.py"))


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda path: path.stem)
def test_fixture_reports_exactly_what_it_expects(fixture: Path) -> None:
    """Each fixture as the command reads it: with its project's index, which also reads the installed torch
    (what ``torch.cuda.get_rng_state`` is annotated to return)."""
    findings = analyze(ast.parse(fixture.read_text()), fixture.read_text(), context=context_for(fixture))
    assert {(finding.line, finding.code) for finding in findings} == expected_findings(fixture)


def test_every_code_has_a_fixture_with_positives() -> None:
    codes = {code for fixture in FIXTURES for _, code in expected_findings(fixture)}
    assert codes == set(RULES)


def analyze_source(source: str, **vocabulary: frozenset[str]) -> list:
    return analyze(ast.parse(source), source, Vocabulary(**vocabulary))


def test_message_names_container_evidence_and_fill_line() -> None:
    source = (LINT_FIXTURES / "WG001.py").read_text()
    first = analyze_source(source)[0]
    assert first.message.startswith("WG001 module-level dict `module_names` is keyed by nn.Module objects")
    assert "(from `model.named_modules()` at line 18)" in first.message
    assert (first.line, first.col, first.evidence.line) == (12, 0, 18)


@pytest.mark.parametrize("key, said", [("t.data_ptr()", "data_ptr()"), ("id(t)", "id()")])
def test_wg005_says_how_its_keys_are_made(key: str, said: str) -> None:
    source = f"import torch\nseen = {{}}\n\n\ndef g(t: torch.Tensor):\n    seen[{key}] = t.sum()\n"
    (finding,) = analyze_source(source)
    assert finding.code == "WG005"
    assert f"is keyed by {said} of tensors" in finding.message


@pytest.mark.parametrize("parameters, said", [("", "its one result (it takes no arguments)"), ("name: str", "one per distinct call")])
def test_a_cache_of_what_a_function_builds_says_how_many_results_it_keeps(parameters: str, said: str) -> None:
    source = f"import functools\nimport torch\n\n\n@functools.lru_cache(maxsize=1)\ndef load({parameters}):\n    return torch.nn.Linear(4, 4)\n"
    (finding,) = analyze_source(source)
    assert finding.code == "WG007" and f"keeps the nn.Module objects it returns, {said}, for the process" in finding.message


def test_hooks_give_their_module_and_tensor_arguments() -> None:
    findings = analyze_source(
        "import torch\n"
        "seen = set()\n"
        "grads = []\n"
        "def on_forward(module, inputs, output):\n"
        "    seen.add(module)\n"
        "def on_grad(grad):\n"
        "    grads.append(grad)\n"
        "def attach(model, tensor):\n"
        "    model.register_forward_hook(on_forward)\n"
        "    tensor.register_hook(on_grad)\n"
        "    torch.nn.modules.module.register_module_forward_pre_hook(lambda module, args: seen.add(module))\n"
    )
    assert [(finding.line, finding.code, finding.holds) for finding in findings] == [
        (2, "WG002", ("module",)),
        (3, "WG002", ("tensor",)),
    ]
    assert "registered with `register_forward_hook` at line 9" in findings[0].message


def test_a_method_registered_as_hook_gets_the_module_after_self() -> None:
    findings = analyze_source(
        "seen = {}\n"
        "class Recorder:\n"
        "    def attach(self, model):\n"
        "        model.register_full_backward_hook(self.record)\n"
        "    def record(self, module, grad_input, grad_output):\n"
        "        seen[module] = grad_output\n"
    )
    assert [(finding.code, finding.holds) for finding in findings] == [("WG001", ("module",))]


def test_extra_types_count_like_framework_types() -> None:
    source = (
        "from mylib.graph import Node\n"
        "class Leaf(Node):\n"
        "    pass\n"
        "owners = {}\n"
        "def own(node: Node, leaf: Leaf):\n"
        "    owners[node] = 1\n"
    )
    assert analyze_source(source) == []
    findings = analyze_source(source, extra_types=frozenset({"mylib.graph.Node"}))
    assert [(finding.code, finding.holds) for finding in findings] == [("WG001", ("mylib.graph.Node",))]
    assert "`mylib.graph.Node` objects" in findings[0].message
    leaf_only = source.replace("owners[node] = 1", "owners[leaf] = 1")
    assert len(analyze_source(leaf_only, extra_types=frozenset({"mylib.graph.Node"}))) == 1


def test_names_alone_are_never_evidence() -> None:
    source = "cache = {}\ndef f(module, tensor, param, model):\n    cache[module] = cache[tensor] = cache[param] = model\n"
    assert analyze_source(source) == []


def test_module_level_model_owning_its_tensors_is_not_a_registry() -> None:
    """Its list is the model's own state, not a registry (no WG002 or WG011); the model itself, built as the
    module is imported, is kept for the process (WG007)."""
    source = (
        "import torch\n"
        "class Model(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.extra = [torch.zeros(1)]\n"
        "model = Model()\n"
    )
    assert [(finding.code, finding.name) for finding in analyze_source(source)] == [("WG007", "model")]


def test_what_tests_and_examples_build_at_import_is_their_own(tmp_path: Path) -> None:
    """A module of a test suite or of examples, by its name or its package's, keeps its tables for its tests
    or its demo: only the library module's constant is WG007."""
    source = "import torch\nEPS = torch.tensor(1e-6)\n\n\ndef shift(x):\n    return x + EPS\n"
    for relative in ("pkg/__init__.py", "pkg/tests/__init__.py", "pkg/examples/__init__.py"):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text("")
    found = {}
    modules = ("pkg/ops.py", "pkg/tests/helpers.py", "pkg/test_ops.py", "pkg/ops_test.py", "pkg/examples/dictionary.py")
    for relative in modules:
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
        found[relative] = [finding.code for finding in analyze(ast.parse(source), source, context=context_for(path))]
    assert found == {relative: ["WG007"] if relative == "pkg/ops.py" else [] for relative in modules}


def test_state_of_a_module_level_instance_is_long_lived() -> None:
    findings = analyze_source(
        "from torch import nn\n"
        "class _Registry:\n"
        "    def __init__(self):\n"
        "        self.by_module = {}\n"
        "    def add(self, module: nn.Module):\n"
        "        self.by_module[module] = module.__class__.__name__\n"
        "registry = _Registry()\n"
    )
    assert [(finding.line, finding.code, finding.name) for finding in findings] == [(4, "WG001", "registry.by_module")]


@pytest.mark.parametrize(
    "fill, reason",
    [
        ("pickle.dump(cache, open('f', 'wb'))", "serialized with `pickle.dump()`"),
        ("isinstance(cache, dict)", "type is checked with `isinstance(cache, dict)`"),
        ("external.consume(cache)", "passed to `external.consume()`"),
        ("cache.move_to_end(model)", "uses `.move_to_end`"),
        ("cache[(model, 1)] = 1", "keyed by tuples"),
        ("cache[model] = (model, 'name')", "refers to its own key"),
        ("cache[model] = model.forward", "refers to its own key"),
    ],
)
def test_fix_is_refused_with_a_reason(fill: str, reason: str) -> None:
    source = (
        "import pickle, external\nfrom collections import OrderedDict\nfrom torch import nn\ncache = OrderedDict()\n"
        f"def use(model: nn.Module):\n    cache[model] = model.__class__.__name__\n    {fill}\n"
    )
    (finding,) = analyze_source(source)
    assert finding.code == "WG001" and not finding.fixable and reason in (finding.fix_reason or "")
    assert f"fix it by hand: {finding.fix_reason}" in advice(finding) and not finding.edits


def test_values_derived_from_the_key_without_referring_to_it_are_fine() -> None:
    source = "from torch import nn\ncache = {}\ndef use(m: nn.Module):\n    cache[m] = f'{m}'\n    cache[m] = str(m)\n"
    (finding,) = analyze_source(source)
    assert finding.fixable, finding.fix_reason


def test_id_keyed_map_used_without_id_is_not_fixable() -> None:
    source = (
        "from torch import nn\nregistry = {}\n"
        "def put(w: nn.Parameter, scale):\n    registry[id(w)] = scale\n"
        "def dump():\n    return list(registry.keys())\n"
    )
    (finding,) = analyze_source(source)
    assert finding.code == "WG005" and "used without id() at line 6" in (finding.fix_reason or "")


def test_syntax_of_newer_pythons_and_odd_code_never_crash() -> None:
    source = (
        "import torch\nfrom torch import nn\nx = {}\n"
        "match x:\n    case {'a': y, **rest}:\n        pass\n"
        "def f(*args, **kwargs):\n    global x\n    x, *rest = {}, 1\n    x[args] = kwargs\n"
        "class C(nn.Module):\n    a = b = {}\n    def g(self):\n        (self.a)[self] = 1\n"
        "y = [*x]\n"
    )
    # only the class attribute keyed by its instances (line 12); `x` is rebound in f, so no long-lived pin
    assert [(finding.line, finding.code, finding.name) for finding in analyze_source(source)] == [(12, "WG003", "C.a")]


def test_walrus_bindings_shadow_globals_and_carry_evidence() -> None:
    source = (
        "from torch import nn\n"
        "cache = {}\n"
        "def local_walrus(model: nn.Module):\n"
        "    if (cache := {}) is not None:\n"
        "        cache[model] = 1\n"
        "def evidence_through_walrus(model: nn.Module):\n"
        "    if (found := model) is not None:\n"
        "        cache[found] = 1\n"
    )
    (finding,) = analyze_source(source)
    assert (finding.line, finding.evidence.line) == (2, 6), "line 5 fills a local made by a walrus"


def test_a_walrus_in_a_statement_that_never_names_the_container_still_binds() -> None:
    """Only the parts of a function that name a candidate are walked up front; a walrus binds in the whole
    function, so the statements that hold one are walked too."""
    source = (
        "from torch import nn\n"
        "cache = {}\n"
        "def fill(model: nn.Module):\n"
        "    while (found := model) is None:\n"
        "        pass\n"
        "    cache[found] = 1\n"
    )
    (finding,) = analyze_source(source)
    assert (finding.line, finding.evidence.line) == (2, 3)


def test_evidence_reaches_into_statements_that_never_mention_the_container() -> None:
    """Only statements that mention a candidate are walked up front; others are indexed when evidence
    resolves a name inside them (``LAYER`` in ``MODEL = LAYER``), every statement sharing the line included."""
    source = (
        "from torch import nn\n"
        "LAYER = nn.Linear(2, 2); MODEL = LAYER; y = 0\n"
        "PARAM = nn.Parameter(MODEL.weight); WEIGHT = PARAM; x = 1\n"
        "registry = {}\n"
        "def fill():\n"
        "    global LAYER, MODEL, PARAM, WEIGHT  # may be swapped: not the module's for good\n"
        "    registry[MODEL] = 1\n"
        "    registry[WEIGHT] = 2\n"
    )
    (finding,) = analyze_source(source)
    assert (finding.line, finding.holds) == (4, ("module", "parameter"))
    assert "built by `nn.Linear(...)` at line 2" in finding.message


GETTER = """\
from typing import List
from torch import nn

_STACK: List[nn.Module] = []
_SEEN = []


def get_stack() -> List[nn.Module]:
    return _STACK


def get_seen():
    return _SEEN


class Mode(nn.Module):
    def __enter__(self):
        get_stack().append(self)
        return self

    def __exit__(self, *exc):
        stack = get_stack()
        stack.pop()


def remember(m: nn.Module) -> None:
    get_seen().append(m)
"""


def test_a_container_reached_through_a_getter_is_judged_by_what_the_getters_callers_do() -> None:
    """``get_stack().append(self)`` in ``__enter__`` and ``get_stack().pop()`` in ``__exit__``: a stack that
    lasts one use, no pin (its annotation alone would say modules); ``get_seen().append(m)``, never undone,
    is a fill like any other. The fix stays refused: callers in other modules may do anything with it."""
    findings = analyze_source(GETTER)
    assert [(f.name, f.code) for f in findings] == [("_SEEN", "WG002")]
    assert findings[0].evidence.line == 26  # the parameter that brings the module in
    assert findings[0].fix_reason == "it is returned to callers the fix cannot see: `get_seen()` hands it out (line 13)"
