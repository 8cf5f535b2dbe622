"""The analysis: one ``ast`` pass that finds long-lived containers holding framework objects strongly.

It is the single source of truth for the flake8 plugin (which prints findings), the standalone hook, and
the codemod (which applies the findings' edits). Pipeline: ``survey`` (statements only; most files stop
there) -> ``uses`` (one walk of the statements that mention a candidate; references resolved to slots and
their uses sorted) -> ``evidence`` (what the keys are) -> the judges, one per rule family
(``containers.py`` for WG001-WG005 and WG007, ``caches.py`` for WG006 and for WG007 on a cache of what its
function makes, ``finalizers.py`` for WG009, ``kept_hooks.py`` for WG010, ``singleton_state.py`` for WG011,
``kept_slots.py`` for WG012), which decide the code and, with ``container_fix.py`` and ``cache_fix.py``,
whether and how the codemod may fix it.
"""
from __future__ import annotations

import ast
from typing import Optional

from ..analysis.evidence import Evidence, Hook, Obj
from ..analysis.framework_types import MODULE, MODULE_HOOK_REGISTRARS, TENSOR, Vocabulary
from ..analysis.imported_kinds import Imported
from ..analysis.survey import Survey, survey_module
from ..analysis.uses import UseClassifier, collect
from ..index.project import ModuleContext
from ..syntax.mentions import Mentions
from ..syntax.scopes import Scopes, returned_function
from ..analysis.memo_decorators import memo_decorators
from .caches import judge_cache, judge_kept_by_cache, judge_memo_decorator
from .containers import ContainerJudge
from .finalizers import judge_finalizers
from .kept_from_import import judge_kept_from_import
from .kept_hooks import judge_kept_hooks
from .kept_slots import judge_kept_slots
from .singleton_state import judge_singleton_state
from .findings import Finding

TORCH_ONLY = Vocabulary()


def analyze(
    tree: ast.Module, source: str, vocabulary: Vocabulary = TORCH_ONLY, context: Optional[ModuleContext] = None
) -> list[Finding]:
    """Findings for one module (``tree`` parsed from ``source``), sorted by position. With its ``context``
    (``project.context_for(path)``), names imported from the rest of its project are resolved too."""
    survey = survey_module(tree, vocabulary, Imported(context, vocabulary))
    scopes = Scopes(tree)
    mentions = Mentions(source)  # one per module: its passes ask about the same words
    findings = judge_finalizers(  # a finalizer that holds its object is rare: its evidence is built only then
        tree, mentions, survey, scopes, lambda target: isinstance(Evidence(scopes, survey, vocabulary, {}, mentions).of(target), Obj)
    )
    findings.extend(_hand_written_caches(tree, mentions, survey, scopes, vocabulary))
    built: list[Evidence] = []

    def module_evidence() -> Evidence:
        """The module's evidence for WG010-WG012, built on first use: most modules never need it."""
        if not built:
            built.append(Evidence(scopes, survey, vocabulary, {}, mentions))
        return built[0]

    findings.extend(judge_kept_hooks(survey, module_evidence, MODULE_HOOK_REGISTRARS, mentions))
    findings.extend(judge_singleton_state(tree, survey, module_evidence))
    findings.extend(judge_kept_slots(tree, survey, module_evidence))
    built_at_import = judge_kept_from_import(tree, survey, module_evidence)
    if not survey.has_candidates:
        return _sorted(findings, built_at_import)
    collected = collect(tree, mentions, survey, scopes)
    evidence = Evidence(scopes, survey, vocabulary, _hooks(collected.hook_calls, scopes, survey), mentions)
    classifier = UseClassifier(scopes, survey, evidence.calls_of, evidence.mentions_of)
    for reference in collected.references:
        classifier.add(reference)
    judge = ContainerJudge(survey, evidence)
    findings.extend(finding for uses in classifier.uses.values() if (finding := judge.container(uses)) is not None)
    for kept in survey.kept_arguments:
        finding = judge.kept_argument(kept) if kept.keeper.type is not None else judge_kept_by_cache(kept, evidence)
        findings.extend([finding] if finding is not None else [])
    findings.extend(finding for cached in survey.cached_functions if (finding := judge_cache(cached, survey, evidence)) is not None)
    return _sorted(findings, built_at_import)


def _sorted(findings: list[Finding], built_at_import: list[Finding]) -> list[Finding]:
    """The findings by position, with what the module built at import where no other finding names the same
    container: a dict filled at import and again as the program runs is one finding, of what it is filled with.
    So is a global a function sets to a new dict of what it builds (``global bundle; bundle = {"model":
    net}``): the container's finding, not WG012's as well."""
    containers = {finding.name for finding in findings if finding.code in _CONTAINER_CODES}
    findings = [finding for finding in findings if finding.code != "WG012" or finding.name not in containers]
    named = {finding.name for finding in findings}
    findings = findings + [finding for finding in built_at_import if finding.name not in named]
    return sorted(findings, key=lambda finding: (finding.line, finding.col, finding.code))


#: The codes of the container findings (``ContainerJudge``): a name one of them reports is not a slot as well
_CONTAINER_CODES = frozenset(f"WG00{n}" for n in range(1, 9))


def _hand_written_caches(tree: ast.Module, mentions: Mentions, survey: Survey, scopes: Scopes, vocabulary: Vocabulary) -> list[Finding]:
    """WG006 on decorators that memoise in their own closure; the evidence is built only where one is."""
    memos = list(memo_decorators(tree, survey.names))
    if not memos:
        return []
    evidence = Evidence(scopes, survey, vocabulary, {}, mentions)
    return [finding for memo in memos if (finding := judge_memo_decorator(memo, tree, evidence)) is not None]


def _hooks(calls: list[ast.Call], scopes: Scopes, survey: Survey) -> dict[ast.AST, Hook]:
    """Functions registered as hooks, and which of their parameters receives the module or tensor."""
    hooks: dict[ast.AST, Hook] = {}
    for call in calls:
        registrar = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
        hook = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "hook"), None)
        kind = MODULE if registrar in MODULE_HOOK_REGISTRARS else TENSOR
        function: Optional[ast.AST] = None
        bound_first = 0  # ``functools.partial(capture, "name")``: the hook's own arguments come after those bound
        if isinstance(hook, ast.Call) and survey.names.qualify(hook.func) == "functools.partial" and hook.args:
            bound_first = len(hook.args) - 1 if not any(isinstance(a, ast.Starred) for a in hook.args) else -1
            hook = hook.args[0] if bound_first >= 0 else None
        if isinstance(hook, ast.Call) and isinstance(hook.func, ast.Name):  # ``save_output(name)``: a closure factory
            factory = _defined(hook.func, scopes)
            hook = returned_function(factory) if isinstance(factory, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        if isinstance(hook, ast.Lambda) or isinstance(hook, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function = hook
        elif isinstance(hook, ast.Name):
            function = _defined(hook, scopes)
        elif isinstance(hook, ast.Attribute) and isinstance(hook.value, ast.Name):
            owner = next((info for info in survey.classes.values() if hook.attr in info.methods), None)
            function = owner.methods[hook.attr] if owner is not None else None
        if function is not None:
            bound = function in survey.method_owner and function not in survey.unbound_methods
            hooks[function] = Hook((1 if bound else 0) + bound_first, kind, call.lineno, registrar, call)
    return hooks


def _defined(name: ast.Name, scopes: Scopes) -> Optional[ast.AST]:
    """The one ``def`` that binds ``name`` where it is used."""
    resolved = scopes.resolve(name.id, name)
    definitions = [binding.node for binding in resolved[1] if binding.how == "def"] if resolved else []
    return definitions[0] if len(definitions) == 1 else None
