"""The analysis: one ``ast`` pass that finds long-lived containers holding framework objects strongly.

It is the single source of truth for the flake8 plugin (which prints findings), the standalone hook, and
the codemod (which applies the findings' edits). Pipeline: ``survey`` (statements only; most files stop
there) -> ``uses`` (one walk of the statements that mention a candidate; references resolved to slots and
their uses sorted) -> ``evidence`` (what the keys are) -> findings, with fixability and edits decided here.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterable, Iterator, Optional

from . import cache_fix, rules
from .containers import ContainerType, Member, annotation_edits, constructor_edit, initial_members
from .evidence import Evidence, Hook, Obj, Tup, Value, element_of, project, text
from .findings import Edit, EditKind, Evidence as Proof, Finding, Span
from .imported import Imported
from .names import is_our_runtime
from .project import ModuleContext
from .scopes import Scopes, function_parameters
from .survey import CachedFunction, Survey, survey_module
from .uses import Definition, Fill, SlotUses, UseClassifier, collect, id_argument
from .vocabulary import MODULE, MODULE_HOOK_REGISTRARS, TENSOR, Vocabulary, compares_by_value

_MAP_API = frozenset(
    "get setdefault pop popitem update clear keys values items copy fromkeys default_factory".split()
) | {"__contains__", "__getitem__", "__setitem__", "__delitem__", "__len__", "__iter__"}
_SET_API = frozenset(
    "add discard remove pop clear copy update isdisjoint union intersection difference symmetric_difference "
    "issubset issuperset intersection_update difference_update symmetric_difference_update".split()
) | {
    "__contains__", "__len__", "__iter__",
}
_CONTAINER_GENERICS = frozenset(
    "Dict dict DefaultDict defaultdict OrderedDict Mapping MutableMapping Set set MutableSet AbstractSet "
    "List list Deque deque WeakKeyDictionary WeakSet".split()
)
#: Steps from a key to a new object that has no reference back to it: numbers, shapes, lists, a detached
#: tensor, its gradient or its ``.data`` (new tensor objects without autograd history), a hook's handle.
_DETACHING_METHODS = frozenset(
    "detach tolist item numel dim size data_ptr element_size nelement stride storage_offset is_contiguous "
    "get_device".split()
)
_DETACHING_ATTRIBUTES = frozenset(
    "grad data shape dtype device ndim requires_grad is_leaf __name__ __qualname__ training layout".split()
)
_HOLDING_CALLS = frozenset({"partial", "tuple", "list", "set", "frozenset", "dict", "MethodType", "namedtuple"})
_NON_INSTANCE_TYPES = frozenset(
    {"typing.Type", "builtins.type", "typing.Callable", "collections.abc.Callable"}
    | {f"builtins.{name}" for name in "str int float bool bytes complex".split()}
)
#: Calls that may see a module-level instance without taking the container it holds anywhere.
_HOLDER_SAFE_CALLS = frozenset(f"builtins.{name}" for name in "print len id repr str isinstance hasattr callable".split())
_ORDERED_MAPS = frozenset({"collections.OrderedDict", "typing.OrderedDict"})


TORCH_ONLY = Vocabulary()


def analyze(
    tree: ast.Module, source: str, vocabulary: Vocabulary = TORCH_ONLY, context: Optional[ModuleContext] = None
) -> list[Finding]:
    """Findings for one module (``tree`` parsed from ``source``), sorted by position. With its ``context``
    (``project.context_for(path)``), names imported from the rest of its project are resolved too."""
    survey = survey_module(tree, vocabulary, Imported(context, vocabulary))
    if not survey.has_candidates:
        return []
    scopes = Scopes(tree)
    collected = collect(tree, source, survey, scopes)
    evidence = Evidence(scopes, survey, vocabulary, _hooks(collected.hook_calls, scopes, survey))
    classifier = UseClassifier(scopes, survey)
    for reference in collected.references:
        classifier.add(reference)
    judge = _Judge(survey, evidence)
    findings = [finding for uses in classifier.uses.values() if (finding := judge.container(uses)) is not None]
    findings.extend(finding for cached in survey.cached_functions if (finding := judge.cache(cached)) is not None)
    return sorted(findings, key=lambda finding: (finding.line, finding.col, finding.code))


def _hooks(calls: list[ast.Call], scopes: Scopes, survey: Survey) -> dict[ast.AST, Hook]:
    """Functions registered as hooks, and which of their parameters receives the module or tensor."""
    hooks: dict[ast.AST, Hook] = {}
    for call in calls:
        registrar = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
        hook = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "hook"), None)
        kind = MODULE if registrar in MODULE_HOOK_REGISTRARS else TENSOR
        function: Optional[ast.AST] = None
        if isinstance(hook, ast.Lambda):
            function = hook
        elif isinstance(hook, ast.Name):
            resolved = scopes.resolve(hook.id, call)
            definitions = [binding.node for binding in resolved[1] if binding.how == "def"] if resolved else []
            function = definitions[0] if len(definitions) == 1 else None
        elif isinstance(hook, ast.Attribute) and isinstance(hook.value, ast.Name):
            owner = next((info for info in survey.classes.values() if hook.attr in info.methods), None)
            function = owner.methods[hook.attr] if owner is not None else None
        if function is not None:
            bound = function in survey.method_owner and function not in survey.unbound_methods
            hooks[function] = Hook(1 if bound else 0, kind, call.lineno, registrar)
    return hooks


@dataclass(frozen=True)
class _Held:
    """What one fill puts in a container, once evidence is known."""

    fill: Fill
    value: Value

    @property
    def object(self) -> Optional[Obj]:
        return self.value if isinstance(self.value, Obj) else None

    @property
    def in_tuple(self) -> Optional[Obj]:
        """A framework object inside a tuple key: pinned, and a tuple cannot be weakly referenced."""
        return _object_in_tuple(self.value)


def _object_in_tuple(value: Value) -> Optional[Obj]:
    pending = list(value.items) if isinstance(value, Tup) else []
    while pending:
        item = pending.pop()
        if isinstance(item, Tup):
            pending.extend(item.items)
        elif isinstance(item, Obj):
            return item
    return None


class _Judge:
    def __init__(self, survey: Survey, evidence: Evidence) -> None:
        self.survey = survey
        self.evidence = evidence

    # --- containers (WG001-WG005) ------------------------------------------------------------------

    def container(self, uses: SlotUses) -> Optional[Finding]:
        containers = [d for d in uses.definitions if d.constructor and d.constructor.type is not ContainerType.PLACEHOLDER]
        if not containers:
            return self._imported_container(uses)
        constructor = containers[0].constructor
        assert constructor is not None
        held = [_Held(fill, self._value(fill, constructor.type.keyed)) for fill in self._fills(uses, containers)]
        verdict = self._rule(uses, constructor.type, held)
        if verdict is None:
            return None
        code, objects = verdict
        line, first = min(objects, key=lambda pair: pair[0])
        kinds = tuple(sorted({found.kind for _, found in objects}))
        reason = self._why_not_fixable(uses, containers, held, code)
        primary = _primary(uses, containers)
        place = {"module": "module-level", "class": "class-level", "instance": "module-level instance's"}[uses.slot.where]
        name = self._display(uses)
        evidence = f"({first.why} at line {line})"
        return Finding(
            code=code,
            line=primary.target.lineno,
            col=primary.target.col_offset,
            name=name,
            kind=constructor.word,
            scope=uses.slot.where,
            holds=kinds,
            evidence=Proof(line, first.why),
            message=rules.container_message(code, constructor.word, place, name, kinds, evidence),
            fix_reason=reason,
            edits=() if reason else tuple(self._edits(uses, containers, code)),
            runtime_names=frozenset() if reason else frozenset({constructor.type.runtime_name}),  # type: ignore[arg-type]
        )

    def _imported_container(self, uses: SlotUses) -> Optional[Finding]:
        """A container of another project module filled here (``from .state import registry``;
        ``registry[param] = ...``): reported here, at the first fill with evidence, where a ``# noqa``
        belongs. The fix belongs to the definition, which the codemod edits only in its own file."""
        imported = self.survey.imported_containers.get(uses.slot.name) if uses.slot.where == "module" else None
        if imported is None or uses.definitions:
            return None
        held = [_Held(fill, self._value(fill, imported.type.keyed)) for fill in uses.fills]
        foreign = [(h.fill, found) for h in held if not h.fill.id_key and (found := h.object or h.in_tuple) and not found.owned]
        if not foreign:
            return None
        fill, first = min(foreign, key=lambda pair: pair[0].line)
        code = "WG001" if imported.type.keyed else "WG002"
        kinds = tuple(sorted({found.kind for _, found in foreign}))
        name = f"{imported.module}.{uses.slot.name}"
        word = imported.type.value
        evidence = f"({first.why} at line {fill.line}; defined at `{imported.module}` line {imported.line})"
        return Finding(
            code=code,
            line=fill.line,
            col=fill.member.expr.col_offset,
            name=name,
            kind=word,
            scope="module",
            holds=kinds,
            evidence=Proof(fill.line, first.why),
            message=rules.container_message(code, word, "module-level", name, kinds, evidence),
            fix_reason=f"it is defined in `{imported.module}` (line {imported.line}); fix it there",
        )

    def _rule(
        self, uses: SlotUses, container: ContainerType, held: list[_Held]
    ) -> Optional[tuple[str, list[tuple[int, Obj]]]]:
        """Which code applies, with the ``(fill line, object)`` evidence for it; None when none does."""
        direct = [(h.fill.line, found) for h in held if not h.fill.id_key and (found := h.object or h.in_tuple)]
        direct += self._annotated(uses.definitions)
        if self._annotation_contradicts(uses.definitions):
            direct = []  # ``Set[Type[nn.Module]]`` holds classes, whatever a filling function's parameter says
        if container in (ContainerType.WEAK_MAP, ContainerType.WEAK_SET):  # a trap whatever its lifetime
            broken = [(line, found) for line, found in direct if compares_by_value(found.kind)]
            return ("WG004", broken) if broken else None
        if uses.slot.where == "instance" and not self._is_singleton_state(uses.slot.owner):
            return None  # an ordinary instance attribute dies with its instance
        foreign = [(line, found) for line, found in direct if not found.owned]
        if foreign:
            code = "WG003" if uses.slot.where == "class" else ("WG001" if container.keyed else "WG002")
            return code, foreign
        if direct:
            return "WG007", direct  # it holds only what it builds itself: a workspace, not a pin
        by_id = [(h.fill.line, h.object) for h in held if h.fill.id_key and h.object]
        never_emptied = not uses.removals and all(d.top_level for d in uses.definitions if d.constructor)
        if never_emptied and by_id and uses.slot.where == "module":
            never_emptied = self.survey.imported.emptied_elsewhere(uses.slot.name) is None
        if by_id and container.keyed and never_emptied:
            return "WG005", by_id  # type: ignore[return-value]
        return None

    def _fills(self, uses: SlotUses, containers: list[Definition]) -> Iterator[Fill]:
        yield from uses.fills
        for definition in containers:
            assert definition.constructor is not None
            for member in initial_members(definition.constructor):
                inner = id_argument(member.expr, self.survey.names)
                if inner is not None:
                    yield Fill(Member(inner, member.shape, member.value), definition.target.lineno, "definition", True)
                else:
                    yield Fill(member, definition.target.lineno, "definition")
        if any(d.constructor and d.constructor.type is ContainerType.DEFAULT_MAP for d in containers):
            yield from uses.subscript_reads

    def _value(self, fill: Fill, keyed: bool) -> Value:
        shape = fill.member.shape
        if shape == "update":
            shape = "pairs" if keyed else "iterable"
        value = self.evidence.of(fill.member.expr)
        if shape == "iterable":
            return element_of(value)
        if shape == "pairs":
            return project(element_of(value), (0,))
        return value

    def _annotated(self, definitions: list[Definition]) -> list[tuple[int, Obj]]:
        """Keys or elements named by the container's own annotation: ``Dict[nn.Module, str]``."""
        found = []
        for definition in definitions:
            value = self._annotated_member(definition.annotation)
            if isinstance(value, Obj):
                found.append((definition.target.lineno, Obj(value.kind, f"annotated `{text(definition.annotation)}`")))  # type: ignore[arg-type]
        return found

    def _annotated_member(self, annotation: Optional[ast.expr]) -> Value:
        key = self._key_annotation(annotation)
        return self.evidence.of_annotation(key) if key is not None else None

    def _key_annotation(self, annotation: Optional[ast.expr]) -> Optional[ast.expr]:
        """The key (element) type a container's own annotation names: ``nn.Module`` in
        ``Optional[Dict[nn.Module, str]]``; None when the annotation names no container."""
        if not isinstance(annotation, ast.Subscript):
            return None
        generic = (self.survey.names.qualify(annotation.value) or "").rpartition(".")[2]
        parts = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        if generic in ("Optional", "ClassVar", "Final", "Union"):
            return next((key for part in parts if (key := self._key_annotation(part)) is not None), None)
        return parts[0] if generic in _CONTAINER_GENERICS else None

    def _holder_escape(self, owner: str) -> Optional[str]:
        """A module-level instance that holds the container, pickled or copied whole, takes it along."""
        holders = set(self._holders(owner))
        for node in ast.walk(self.evidence.scopes.module):
            if isinstance(node, ast.Call) and any(isinstance(a, ast.Name) and a.id in holders for a in node.args):
                callee = self.survey.names.qualify(node.func) or ""
                if callee not in _HOLDER_SAFE_CALLS:  # ``pickle.dumps(holder)``, ``deepcopy(holder)``, ``dump(holder)``
                    return f"the instance that holds it is passed to `{text(node.func)}()` (line {node.lineno}), which may take it along"
        return None

    def _annotation_contradicts(self, definitions: list[Definition]) -> bool:
        """The container's own annotation says its keys or elements are not framework instances: classes
        (``Type[nn.Module]``), strings, numbers. Its word wins over any evidence from the fills."""
        for definition in definitions:
            key = self._key_annotation(_parsed(definition.annotation))
            if key is not None and self._not_an_instance(key):
                return True
        return False

    def _not_an_instance(self, annotation: ast.expr) -> bool:
        """``Type[X]``, ``type[X]``, ``type``, ``str``, ``int``...: annotations no framework instance matches."""
        target = annotation.value if isinstance(annotation, ast.Subscript) else annotation
        qualified = self.survey.names.qualify(target) or ""
        return qualified in _NON_INSTANCE_TYPES

    def _holders(self, owner: str) -> list[str]:
        """The module-level instances whose class is ``owner`` or derives from it."""
        return [
            name
            for name, class_name in self.survey.singletons.items()
            if owner in {ancestor.name for ancestor in self.survey.lineage(self.survey.classes[class_name])}
        ]

    def _is_singleton_state(self, owner: str) -> bool:
        return bool(self._holders(owner))

    def _display(self, uses: SlotUses) -> str:
        slot = uses.slot
        if slot.where == "instance":
            holder = next((name for name, cls in self.survey.singletons.items() if cls == slot.owner), None)
            return f"{holder}.{slot.name}" if holder else f"{slot.owner}().{slot.name}"
        return slot.display

    # --- fixability --------------------------------------------------------------------------------

    def _why_not_fixable(self, uses: SlotUses, containers: list[Definition], held: list[_Held], code: str) -> Optional[str]:
        """The first reason the codemod must leave this container alone, or None."""
        if code == "WG007":
            return "it is a workspace of objects it builds itself; a weak container would drop them at once"
        types = {d.constructor.type for d in containers if d.constructor}
        if len({t.runtime_name for t in types}) > 1:
            return "it is bound to different kinds of container"
        for definition in containers:
            outcome = constructor_edit(definition.constructor)  # type: ignore[arg-type]
            if isinstance(outcome, str):
                return f"{outcome} (line {definition.target.lineno})"
        unknown = next((d for d in uses.definitions if d.constructor is None), None)
        if unknown is not None:
            what = f"`{text(unknown.value)}`" if unknown.value is not None else "something"
            return f"it is rebound to {what} at line {unknown.target.lineno}, which the fix cannot convert"
        if uses.blockers:
            line, blocker = uses.blockers[0]
            return f"{blocker} (line {line})"
        if uses.slot.where == "instance":
            escape = self._holder_escape(uses.slot.owner)
            if escape is not None:
                return escape
        keyed = next(iter(types)).keyed
        api = _MAP_API if keyed else _SET_API
        unsupported = next(((line, method) for line, method in uses.methods if method not in api), None)
        if unsupported is not None:
            runtime = "WeakIdMap" if keyed else "WeakIdSet"
            return f"it uses `.{unsupported[1]}`, which {runtime} does not provide (line {unsupported[0]})"
        ordered = next((d for d in containers if d.constructor and d.constructor.callee in _ORDERED_MAPS), None)
        if ordered is not None and uses.equalities:
            return f"it is compared with `==` (line {uses.equalities[0]}), which is order-sensitive for an OrderedDict"
        if ordered is not None and uses.printed:
            return f"it is printed (line {uses.printed[0]}), and an OrderedDict prints as one, which WeakIdMap does not"
        owned = next((h for h in held if h.object is not None and h.object.owned and code != "WG004"), None)
        if owned is not None:
            return (
                f"it also holds objects built where it is filled ({owned.object.why}, line {owned.fill.line}), "  # type: ignore[union-attr]
                "which nothing else refers to: a weak container would drop them at once"
            )
        tupled = next((h for h in held if h.in_tuple), None)
        if tupled is not None:
            return f"it is keyed by tuples (line {tupled.fill.line}), which cannot be weakly referenced"
        for h in held:
            holding = _key_reference(h.fill.member) or _pair_reference(h.fill.member)
            if holding is not None:
                return f"a value refers to its own key (`{holding}`, line {h.fill.line}), so that key would never be collected"
        if code == "WG005":
            reason = self._why_not_id_fixable(uses, held)
            if reason is not None:
                return reason
        runtime = next(iter(types)).runtime_name
        if runtime and self.survey.names.defines(runtime):
            return f"this module already defines its own `{runtime}`"
        origin = self.survey.names.imported_from(runtime) if runtime else None
        if origin is not None and not is_our_runtime(origin):
            return f"this module already imports its own `{runtime}` (from `{origin}`)"
        return None

    def _why_not_id_fixable(self, uses: SlotUses, held: list[_Held]) -> Optional[str]:
        """An id-keyed map can be keyed by the objects themselves only if every key is ``id()`` of an object
        known to be a framework object: ``id()`` of anything else (a dict, a list) has no weak reference."""
        if uses.key_uses:
            line, use = uses.key_uses[0]
            return f"it is used without id() at line {line} ({use})"
        equal_by_value = next((info for info in self.survey.classes.values() if info.kind and {"__eq__", "__hash__"} & set(info.methods)), None)
        if equal_by_value is not None:
            return f"`{equal_by_value.name}` defines its own `__eq__` or `__hash__`: its objects would be keys by equality, not by id()"
        unknown = [(h.fill.line, h.fill.member.expr) for h in held if h.fill.id_key and h.object is None]
        unknown += [(call.lineno, call.args[0]) for call in uses.id_calls if not isinstance(self.evidence.of(call.args[0]), Obj)]
        if unknown:
            line, expr = min(unknown, key=lambda pair: pair[0])
            return f"it is keyed by `id({text(expr)})` at line {line}, and `{text(expr)}` is not known to be a framework object"
        return None

    def _edits(self, uses: SlotUses, containers: list[Definition], code: str) -> Iterator[Edit]:
        runtime = containers[0].constructor.type.runtime_name  # type: ignore[union-attr]
        assert runtime is not None
        for definition in containers:
            outcome = constructor_edit(definition.constructor)  # type: ignore[arg-type]
            assert isinstance(outcome, Edit)
            yield outcome
            for member in initial_members(definition.constructor):  # type: ignore[arg-type]
                if code == "WG005" and id_argument(member.expr, self.survey.names) is not None:
                    yield Edit(EditKind.UNWRAP_ID, Span.of(member.expr), "")
        for definition in uses.definitions:
            if definition.annotation is not None:
                yield from annotation_edits(definition.annotation, runtime, self.survey.names)
        if code == "WG005":
            yield from (Edit(EditKind.UNWRAP_ID, Span.of(call), "") for call in uses.id_calls)

    # --- caches (WG006) ----------------------------------------------------------------------------

    def cache(self, cached: CachedFunction) -> Optional[Finding]:
        function, owner = cached.function, cached.owner
        bound = owner is not None and function not in self.survey.unbound_methods
        found: Optional[Obj] = None
        if bound and owner is not None and owner.kind:
            found = Obj(owner.kind, f"`self` is a `{owner.name}`, a subclass of `{owner.framework_base}`")
        receives_self_or_cls = bound or function in self.survey.class_methods
        skipped = 1 if receives_self_or_cls else 0
        for position, parameter in enumerate(function_parameters(function)[skipped:], start=skipped):
            if found is not None:
                break
            value = self.evidence.of_annotation(parameter.annotation)
            obj = value if isinstance(value, Obj) else _object_in_tuple(value)  # a tuple of tensors is hashable
            if obj is not None:
                found = Obj(obj.kind, f"parameter `{parameter.arg}: {text(parameter.annotation)}`")  # type: ignore[arg-type]
            elif parameter.annotation is None and owner is None:
                called = self.evidence.from_call_sites(function, parameter, position)
                found = called if isinstance(called, Obj) else None
        if found is None:
            return None
        name = f"{owner.name}.{function.name}" if owner is not None else function.name
        decorator = text(cached.decorator.func if isinstance(cached.decorator, ast.Call) else cached.decorator)
        line = cached.decorator.lineno
        fix = cache_fix.decide(cached, self.survey, self.evidence)  # WG006's fix: cache_fix.py
        return Finding(
            code="WG006",
            line=line,
            col=cached.decorator.col_offset,
            name=name,
            kind=decorator,
            scope="function",
            holds=(found.kind,),
            evidence=Proof(function.lineno, found.why),
            message=rules.cache_message(decorator, name, (found.kind,), f"({found.why} at line {function.lineno})"),
            fix_reason=fix.reason,
            edits=fix.edits,
            runtime_names=fix.runtime_names,
        )


def _primary(uses: SlotUses, containers: list[Definition]) -> Definition:
    """Where to report: a global's or class attribute's own definition (even ``X = None``), else the first
    rebinding; an instance attribute where its container is built (not its class-level annotation)."""
    top = [definition for definition in uses.definitions if definition.top_level]
    candidates = containers if uses.slot.where == "instance" else top or uses.definitions
    return min(candidates, key=lambda definition: (definition.target.lineno, definition.target.col_offset))


def _key_reference(member: Member) -> Optional[str]:
    """The part of a value that refers to its own key, so that even a weak key would never be collected."""
    if member.value is None or not isinstance(member.expr, ast.Name):
        return None
    found = _refers_to(member.value, member.expr.id)
    return text(found) if found is not None else None


def _parsed(annotation: Optional[ast.expr]) -> Optional[ast.expr]:
    """A string annotation (``"Set[Type[nn.Module]]"``) as the expression it spells."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            return ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    return annotation


def _pair_reference(member: Member) -> Optional[str]:
    """``X.update([(k, k.forward)])``, ``X.update((m, m) for m in ...)``: a pair whose value refers to its key."""
    if member.shape != "update":
        return None
    expr = member.expr
    pairs = [expr.elt] if isinstance(expr, (ast.ListComp, ast.SetComp, ast.GeneratorExp)) else getattr(expr, "elts", [])
    for pair in pairs:
        if isinstance(pair, ast.Tuple) and len(pair.elts) == 2 and isinstance(pair.elts[0], ast.Name):
            found = _refers_to(pair.elts[1], pair.elts[0].id)
            if found is not None:
                return text(found)
    return None


def _refers_to(value: ast.expr, key: str) -> Optional[ast.expr]:
    """The sub-expression of ``value`` that refers to ``key``: the key itself, a display or closure holding
    it, ``partial(f, key)``, or a view, copy or bound method reached from it (``key.view(...)``, ``key[:n]``,
    ``key.T``, ``key.clone()`` while gradients flow, ``key.forward``). A step that detaches (``.grad``,
    ``.data``, ``.detach()``, ``.tolist()``, ``.dtype``, a hook handle) ends the reference; a value
    computed by another function of the key (``quantize(key)``) usually has none: the fix is then no worse."""
    if isinstance(value, ast.Name):
        return value if value.id == key else None
    if isinstance(value, (ast.Tuple, ast.List, ast.Set)):
        return _first(_refers_to(element, key) for element in value.elts)
    if isinstance(value, ast.Dict):
        return _first(_refers_to(part, key) for part in (*value.keys, *value.values) if part is not None)
    if isinstance(value, (ast.Lambda, ast.GeneratorExp)):
        return value if any(isinstance(node, ast.Name) and node.id == key for node in ast.walk(value)) else None
    if isinstance(value, (ast.ListComp, ast.SetComp)):
        return value if _refers_to(value.elt, key) is not None else None
    if isinstance(value, (ast.IfExp, ast.BoolOp, ast.NamedExpr, ast.Starred)):
        return _first(_refers_to(part, key) for part in ast.iter_child_nodes(value) if isinstance(part, ast.expr))
    if isinstance(value, (ast.Attribute, ast.Subscript, ast.Call)) and _rooted_at(value, key):
        return None if _detaches(value) else value
    if isinstance(value, ast.Call) and _name_of(value.func) in _HOLDING_CALLS:
        return _first(_refers_to(argument, key) for argument in (*value.args, *(k.value for k in value.keywords)))
    return None


def _first(found: Iterable[Optional[ast.expr]]) -> Optional[ast.expr]:
    return next((node for node in found if node is not None), None)


def _rooted_at(value: ast.expr, key: str) -> bool:
    while isinstance(value, (ast.Attribute, ast.Subscript, ast.Call)):
        value = value.func if isinstance(value, ast.Call) else value.value
    return isinstance(value, ast.Name) and value.id == key


def _name_of(function: ast.expr) -> str:
    return function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")


def _detaches(value: ast.expr) -> bool:
    """Whether any step from the key to ``value`` makes an object with no reference back to the key."""
    while isinstance(value, (ast.Attribute, ast.Subscript, ast.Call)):
        if isinstance(value, ast.Call):
            method = _name_of(value.func) if isinstance(value.func, ast.Attribute) else ""
            if method in _DETACHING_METHODS or (method.startswith("register_") and method.endswith("hook")):
                return True
            value = value.func
            if isinstance(value, ast.Attribute):
                value = value.value  # the method's name is not an attribute read
        elif isinstance(value, ast.Attribute):
            if value.attr in _DETACHING_ATTRIBUTES:
                return True
            value = value.value
        else:
            value = value.value
    return False
