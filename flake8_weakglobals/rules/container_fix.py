"""Whether the codemod may rewrite a container: the first reason it must leave it alone, or None.

The rules decide what is reported; this decides what is safe to change. It refuses what the runtime
cannot honour (methods it lacks, an OrderedDict or a deque compared, printed or used as an operand, a weak container's own operators and
generators), what would lose data (objects only the container refers to, found by ``analysis/ownership.py``;
values that refer to their own key; tuples as keys), what escapes the uses the check sees (``analysis/uses.py`` and
``analysis/passed_to_calls.py`` record those as blockers; here, a namespace or a holder read whole), and id() keys of
objects not known to be framework objects. Every reason names the line it comes from.
"""
from __future__ import annotations

import ast
import re
from typing import Iterable, Optional, Union

from ..analysis.evidence import Evidence, Obj, text
from ..analysis.compiled_regions import compiled_functions, enclosing_function, spells_a_compiler, untraceable
from ..analysis.fill_contents import Held
from ..analysis.letting_go import Read, positional_reads, read_after, walking_reads
from ..analysis.framework_types import PARAMETER, TENSOR
from ..analysis.ownership import SoleOwner
from ..analysis.owners import Owners, Premise
from ..analysis.passed_to_calls import SERIALIZER_PREFIXES
from ..analysis.recorded_uses import Definition, SlotUses
from ..analysis.survey import ClassInfo, Survey
from ..syntax.container_expressions import Constructor, ContainerType, Member, root_name
from ..syntax.qualified_names import Names, is_our_runtime
from ..syntax.scopes import FunctionNode, function_parameters, walk
from .codes import WORKSPACE
from .findings import Edit, EditKind, Span
from .value_fix import ValueFixSafety, stored_values

MAP_API = frozenset(
    "get setdefault pop popitem update clear keys values items copy fromkeys default_factory".split()
) | {"__contains__", "__getitem__", "__setitem__", "__delitem__", "__len__", "__iter__"}
SET_API = frozenset(
    "add discard remove pop clear copy update isdisjoint union intersection difference symmetric_difference "
    "issubset issuperset intersection_update difference_update symmetric_difference_update".split()
) | {
    "__contains__", "__len__", "__iter__",
}
LIST_API = frozenset(
    "append extend insert remove pop index count clear reverse sort copy".split()
) | {"__contains__", "__len__", "__iter__", "__getitem__", "__setitem__", "__delitem__", "__reversed__"}
#: Steps from a key to a new object that has no reference back to it: numbers, shapes, lists, a detached
#: tensor, its gradient or its ``.data`` (new tensor objects without autograd history), a hook's handle, a
#: module's ``state_dict()`` (its tensors, never the module).
_DETACHING_METHODS = frozenset(
    "detach tolist item numel dim size data_ptr element_size nelement stride storage_offset is_contiguous "
    "get_device new_zeros new_ones new_empty new_full new_tensor state_dict".split()
)
#: ``module.weight`` / ``module.bias``: a parameter, which does not refer back to the module that owns it; the
#: sizes and settings torch's layers keep (``module.in_features``): numbers, strings and tuples of them.
_DETACHING_ATTRIBUTES = frozenset(
    "grad data shape dtype device ndim requires_grad is_leaf __name__ __qualname__ training layout weight bias "
    "in_features out_features in_channels out_channels kernel_size padding dilation groups padding_mode "
    "num_embeddings embedding_dim padding_idx normalized_shape eps momentum num_features affine "
    "track_running_stats elementwise_affine inplace embed_dim num_heads head_dim hidden_size input_size "
    "num_layers batch_first bidirectional".split()
)
_HOLDING_CALLS = frozenset({"partial", "tuple", "list", "set", "frozenset", "dict", "MethodType", "namedtuple"})
#: Calls that may see a module-level instance without taking the container it holds anywhere.
HOLDER_SAFE_CALLS = frozenset(f"builtins.{name}" for name in "print len id repr str isinstance hasattr callable".split())
#: What a read after a release sees of an object gone from a weak container: by whether it is a list.
_GAP = {True: "list by position", False: "whole container"}  # by whether the read is by position
_GAP_EFFECT = {
    True: "a weak list closes up the gap, so that position would name another object",
    False: "the container is then the one owner of what it walks, and a weak one would have lost it",
}
_ORDERED_MAPS = frozenset({"collections.OrderedDict", "typing.OrderedDict"})
_DEQUES = frozenset({"collections.deque", "typing.Deque"})
#: Containers whose own behaviour the runtime does not copy, and the uses that would show the difference: an
#: OrderedDict compares by order, prints as one and its ``|`` builds one; a deque equals no list, prints as
#: one and its ``+``/``*`` build deques. ``(use recorded in SlotUses, reason)``, the first use found wins.
_BEHAVIOUR_THE_RUNTIME_DOES_NOT_COPY: tuple[tuple[frozenset[str], tuple[tuple[str, str], ...]], ...] = (
    (_ORDERED_MAPS, (
        ("equalities", "it is compared with `==` (line {line}), which is order-sensitive for an OrderedDict"),
        ("printed", "it is printed (line {line}), and an OrderedDict prints as one, which WeakIdMap does not"),
        ("operators", "it is an operand (line {line}), and an OrderedDict's `|` builds an OrderedDict, WeakIdMap's a dict"),
    )),
    (_DEQUES, (
        ("equalities", "it is compared with `==` (line {line}), and a deque equals no list, which WeakIdList does"),
        ("printed", "it is printed (line {line}), and a deque prints as one, which WeakIdList does not"),
        ("operators", "it is an operand (line {line}), and a deque's `+` and `*` build deques, WeakIdList's lists"),
    )),
)
#: ``WeakSet`` methods that build another ``WeakSet``; the fix's build a plain set (as ``|`` does).
_NEW_WEAK_SET_METHODS = frozenset({"union", "intersection", "difference", "symmetric_difference"})
#: What reads a module's or a class's namespace whole (``globals()``, ``vars(cls)``, ``C.__dict__``).
_NAMESPACE_WORDS = re.compile(r"\b(?:globals|vars|getmembers|getmembers_static)\b|__dict__")
_NAMESPACE_CALLS = frozenset({"builtins.vars", "inspect.getmembers", "inspect.getmembers_static"})
#: Calls that take a whole object along, its attributes included (inside a method, on ``self``).
_SELF_TAKING_CALLS = frozenset({"builtins.vars", "copy.copy", "copy.deepcopy", "dataclasses.asdict", "dataclasses.astuple", "dataclasses.replace"})


class FixSafety:
    """The codemod's safety check for one module's containers."""

    def __init__(self, survey: Survey, evidence: Evidence) -> None:
        self.survey = survey
        self.evidence = evidence
        self.sole_owner = SoleOwner(survey, evidence)
        self.owners = Owners(survey, evidence)
        self.values = ValueFixSafety(survey, evidence, self.sole_owner)
        self._compiled: Optional[dict[FunctionNode, str]] = None

    def why_not_fixable(self, uses: SlotUses, containers: list[Definition], held: list[Held], code: str) -> Optional[str]:
        """The first reason the codemod must leave this container alone, or None."""
        if code == "WG007":
            return WORKSPACE
        types = {d.constructor.type for d in containers if d.constructor}
        if len({t.runtime_name for t in types}) > 1:
            return "it is bound to different kinds of container"
        runtime = runtime_class(next(iter(types)), code)
        for definition in containers:
            outcome = constructor_edit(definition.constructor, runtime)  # type: ignore[arg-type]
            if isinstance(outcome, str):
                return f"{outcome} (line {definition.target.lineno})"
        unknown = next((d for d in uses.definitions if d.constructor is None), None)
        if unknown is not None:
            what = f"`{text(unknown.value)}`" if unknown.value is not None else "something"
            return f"it is rebound to {what} at line {unknown.target.lineno}, which the fix cannot convert"
        if uses.blockers:
            line, blocker = uses.blockers[0]
            return f"{blocker} (line {line})"
        traced = self._traced_use(uses)
        if traced is not None:
            return traced
        if uses.slot.where == "instance":
            escape = self._holder_escape(uses.slot.owner)
            if escape is not None:
                return escape
        whole = self._namespace_read_whole(uses.slot.where, uses.slot.owner)
        if whole is not None:
            return f"{whole}, which sees the container as it is, no longer a dict or a set"
        kind = next(iter(types))
        api = MAP_API if kind.keyed else LIST_API if kind is ContainerType.SEQUENCE else SET_API
        unsupported = next(((line, method) for line, method in uses.methods if method not in api), None)
        if unsupported is not None:
            return f"it uses `.{unsupported[1]}`, which {runtime} does not provide (line {unsupported[0]})"
        if code == "WG004":
            reason = _why_not_weak_fixable(uses, next(iter(types)).value)
            if reason is not None:
                return reason
        unnamed = next((d for d in containers if d.constructor and _without_factory(d.constructor.node, d.constructor.type)), None)
        if unnamed is not None and uses.printed:
            return (
                f"it is a defaultdict without a default factory (line {unnamed.target.lineno}), printed (line {uses.printed[0]}) "
                "as `defaultdict(None, {...})`, which WeakIdMap prints as a dict"
            )
        for callees, refusals in _BEHAVIOUR_THE_RUNTIME_DOES_NOT_COPY:
            if not any(d.constructor and d.constructor.callee in callees for d in containers):
                continue
            for use, reason in refusals:
                lines = getattr(uses, use)
                if lines:
                    return reason.format(line=lines[0])
        if code == "WG008":
            return self.values.why_not(uses, containers, held) or self._unowned(stored_values(held), _global_name(uses)) or self._runtime_name_taken(runtime)
        owned = next((h for h in held if h.object is not None and h.object.owned and code != "WG004"), None)
        if owned is not None:
            return (
                f"it also holds objects built where it is filled ({owned.object.why}, line {owned.fill.line}), "  # type: ignore[union-attr]
                "which nothing else refers to: a weak container would drop them at once"
            )
        alone = self.sole_owner.why(held) if code != "WG004" else None  # a WeakKeyDictionary drops them too
        if alone is not None:
            return alone
        tupled = next((h for h in held if h.in_tuple), None)
        if tupled is not None:
            how = "it is keyed by tuples" if kind.keyed else "it holds them inside tuples or lists"
            return f"{how} (line {tupled.fill.line}), which cannot be weakly referenced"
        for h in held:
            holding = _key_reference(h.fill.member) or _pair_reference(h.fill.member)
            if holding is not None:
                return f"a value refers to its own key (`{holding}`, line {h.fill.line}), so that key would never be collected"
        if code == "WG005":
            reason = self._why_not_id_fixable(uses, held)
            if reason is not None:
                return reason
        listed = next(iter(types)) is ContainerType.SEQUENCE
        unowned = self._unowned(held, _global_name(uses), listed) if code != "WG004" else None
        return unowned or self._runtime_name_taken(runtime)

    def _traced_use(self, uses: SlotUses) -> Optional[str]:
        """A use of the container, in code a compiler traces, that the runtime does not let it trace
        (``analysis/compiled_regions.py``): walking it, handing it on."""
        if self._compiled is None:
            self._compiled = compiled_functions(self.evidence.scopes.module, self.survey.names, spells_a_compiler(self.evidence.source))
        if not self._compiled:
            return None
        module_level = uses.slot.where == "module"
        for reference in self.evidence.mentions_of(uses.slot.name, attribute=not module_level):
            if module_level and self.evidence.scopes.resolve(uses.slot.name, reference) is None:
                continue
            function = enclosing_function(reference, self.evidence.scopes.parent)
            how = self._compiled.get(function) if function is not None else None  # type: ignore[arg-type]
            if how is not None and untraceable(reference, self.evidence.scopes.parent, self.survey.names):
                return (
                    f"line {reference.lineno} uses it as `{text(self.evidence.scopes.parent(reference) or reference)[:50]}` in `{function.name}`, "  # type: ignore[union-attr]
                    f"{how}: the runtime lets a compiler trace `[]`, `get`, `in` and `len` only"
                )
        return None

    def _unowned(self, held: list[Held], container: str, listed: Optional[bool] = None) -> Optional[str]:
        """The first fill whose object no owner is shown for (``analysis/owners.py``), or, for a module
        global, whose owner lets go of it before the container is read by a route that sees a gone entry
        (``analysis/letting_go.py``): by a walk, which sees what only the container kept (an undo log put
        back), or a ``listed`` one by position too. A weak container is right only where something else keeps each object while the
        container is read. (A value map's lookups by name are ``values.py``'s; a class's container is not
        followed yet.)"""
        reads: Optional[list[tuple[Read, bool]]] = None  # with whether each reads by position
        for h in held:
            owner = self.owners.of_member(h.fill.member, h.fill.line, container, buffers=_may_be_buffers(h))
            if not owner.shown:
                return f"no owner is shown for `{text(h.fill.member.expr)}` (line {h.fill.line}) but the container: {owner.why}"
            if not owner.releases or not container or listed is None:
                continue
            if reads is None:
                scopes = self.evidence.scopes
                positional = positional_reads(scopes, container, self.evidence.hooks) if listed else []
                reads = [*((read, True) for read in positional), *((read, False) for read in walking_reads(scopes, container, bool(listed)))]
            for release in owner.releases:
                read = read_after(self.evidence.scopes, release, [read for read, _ in reads], h.fill.member.expr)
                if read is not None:
                    by_position = dict(reads)[read]
                    return (
                        f"`{text(h.fill.member.expr)}` (line {h.fill.line}) is {owner.why}, but line {release.line} lets go of it "
                        f"({release.how}), and line {read.line} reads the {_GAP[by_position]} after that ({read.how}): {_GAP_EFFECT[by_position]}"
                    )
        return None

    def sees_what_goes(self, uses: SlotUses, kind: ContainerType) -> bool:
        """Whether the container is read, in its module, by a route that sees what an owner let go: a list
        by position, a keyed one by a walk (``analysis/letting_go.py``). A class's or an instance's
        container is not followed: it may be."""
        container = _global_name(uses)
        if not container:
            return True
        scopes = self.evidence.scopes
        listed = kind is ContainerType.SEQUENCE
        return bool(walking_reads(scopes, container, listed)) or (listed and bool(positional_reads(scopes, container, self.evidence.hooks)))

    def owners_proof(self, uses: SlotUses, held: list[Held], code: str) -> tuple[tuple[str, ...], tuple[Premise, ...]]:
        """What keeps each object the fix will hold weakly, a line per fill (for ``--diff``), and what that
        takes on trust from callers in other modules (for the codemod to check there)."""
        if code == "WG004":  # already weak
            return (), ()
        held = stored_values(held) if code == "WG008" else held  # a value map holds its values weakly
        owners = [(h, self.owners.of_member(h.fill.member, h.fill.line, _global_name(uses))) for h in held]
        lines = tuple(dict.fromkeys(f"owner, line {h.fill.line}: `{text(h.fill.member.expr)}` is {owner.why}" for h, owner in owners))
        return lines, tuple(dict.fromkeys(premise for _, owner in owners for premise in owner.premises))

    def _runtime_name_taken(self, runtime: Optional[str]) -> Optional[str]:
        """The fix imports ``runtime`` by name: a module with its own thing of that name keeps it."""
        if runtime and self.survey.names.defines(runtime):
            return f"this module already defines its own `{runtime}`"
        origin = self.survey.names.imported_from(runtime) if runtime else None
        if origin is not None and not is_our_runtime(origin):
            return f"this module already imports its own `{runtime}` (from `{origin}`)"
        return None

    def _why_not_id_fixable(self, uses: SlotUses, held: list[Held]) -> Optional[str]:
        """An id-keyed map can be keyed by the objects themselves only if every key is ``id()`` of an object
        known to be a framework object: ``id()`` of anything else (a dict, a list) has no weak reference."""
        if uses.key_uses:
            line, use = uses.key_uses[0]
            return f"it is used without id() at line {line} ({use})"
        equal_by_value = next((info for info in self.survey.classes.values() if info.kind and {"__eq__", "__hash__"} & set(info.methods)), None)
        if equal_by_value is not None:
            return f"`{equal_by_value.name}` defines its own `__eq__` or `__hash__`: its objects would be keys by equality, not by id()"
        for h in held:
            imported = self._imported_class(h.fill.member.expr) if h.fill.id_key else None
            hashed_by_id = imported is not None and self.evidence.vocabulary.kind_of_type(imported) in (TENSOR, PARAMETER)
            if imported is not None and not hashed_by_id and self.survey.imported.compares_by_value(imported):
                return (
                    f"`{imported}` compares by value (`__eq__`/`__hash__` or a dataclass): keyed by the objects, equal ones "
                    f"would share one entry, where their id() never did (line {h.fill.line})"
                )
        unknown = [(h.fill.line, h.fill.member.expr) for h in held if h.fill.id_key and h.object is None]
        unknown += [(call.lineno, call.args[0]) for call in uses.id_calls if not isinstance(self.evidence.of(call.args[0]), Obj)]
        if unknown:
            line, expr = min(unknown, key=lambda pair: pair[0])
            return f"it is keyed by `id({text(expr)})` at line {line}, and `{text(expr)}` is not known to be a framework object"
        return None

    def _imported_class(self, expr: ast.expr) -> Optional[str]:
        """The imported class a key's parameter is annotated with (``block: Block``, ``Optional[Block]``)."""
        resolved = self.evidence.scopes.resolve(expr.id, expr) if isinstance(expr, ast.Name) else None
        binding = resolved[1][0] if resolved is not None and len(resolved[1]) == 1 else None
        annotation = getattr(binding.node, "annotation", None) if binding is not None and binding.how == "parameter" else None
        while isinstance(annotation, ast.Subscript) and (self.survey.names.qualify(annotation.value) or "").endswith("Optional"):
            annotation = annotation.slice
        if not isinstance(annotation, (ast.Name, ast.Attribute)):
            return None
        root = annotation
        while isinstance(root, ast.Attribute):
            root = root.value
        if not (isinstance(root, ast.Name) and self.survey.names.is_imported(root.id)):
            return None
        return self.survey.names.qualify(annotation)

    def _namespace_read_whole(self, where: str, owner: str) -> Optional[str]:
        """Where the namespace that holds the container is walked as a whole: ``globals()`` and ``vars()`` for
        a module global; ``vars(C)``, ``C.__dict__`` and ``inspect.getmembers(C)`` for a class attribute (``C``
        the class, or ``cls`` in its class methods). A helper that clears "every dict in ``vars(cls)``" would
        skip the fixed container. (``getattr(sys.modules[__name__], name)`` stays out of sight.)"""
        info = self.survey.classes.get(owner) if where == "class" else None
        if where not in ("module", "class") or (where == "class" and info is None):
            return None
        if _NAMESPACE_WORDS.search(self.evidence.source) is None:  # one regex instead of a walk of the module
            return None
        for node in walk(self.evidence.scopes.module):
            if isinstance(node, ast.Call):
                callee = self.survey.names.qualify(node.func) or ""
                if info is None and callee in ("builtins.globals", "builtins.vars") and not node.args and not self._names_one_global(node):
                    return f"the module reads its globals whole with `{text(node)}` (line {node.lineno})"
                if info is None and callee in _NAMESPACE_CALLS and node.args and self._this_module(node.args[0]):
                    return f"the module reads its own namespace whole with `{text(node)}` (line {node.lineno})"
                if info is not None and callee in _NAMESPACE_CALLS and node.args and self._names_class(node.args[0], info):
                    return f"`{info.name}` is read whole with `{text(node)}` (line {node.lineno})"
            elif isinstance(node, ast.Attribute) and node.attr == "__dict__" and info is not None and self._names_class(node.value, info):
                return f"`{info.name}` is read whole as `{text(node)}` (line {node.lineno})"
            elif isinstance(node, ast.Attribute) and node.attr == "__dict__" and info is None and self._this_module(node.value):
                return f"the module reads its own namespace whole as `{text(node)}` (line {node.lineno})"
        return None

    def _names_one_global(self, call: ast.Call) -> bool:
        """``"name" in globals()``, ``globals()["name"]``, ``globals().get("name")``: one name looked up, not
        the namespace walked."""
        parent = self.evidence.scopes.parent(call)
        if isinstance(parent, ast.Compare) and parent.comparators[-1:] == [call] and isinstance(parent.left, ast.Constant):
            return all(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops)
        if isinstance(parent, ast.Subscript) and parent.value is call:
            return isinstance(parent.slice, ast.Constant)
        if isinstance(parent, ast.Attribute) and parent.attr in ("get", "__contains__"):
            outer = self.evidence.scopes.parent(parent)
            return isinstance(outer, ast.Call) and bool(outer.args) and isinstance(outer.args[0], ast.Constant)
        return False

    def _this_module(self, expr: ast.expr) -> bool:
        """``sys.modules[__name__]``: the module itself, whose namespace holds its globals."""
        return (
            isinstance(expr, ast.Subscript)
            and self.survey.names.qualify(expr.value) == "sys.modules"
            and isinstance(expr.slice, ast.Name)
            and expr.slice.id == "__name__"
        )

    def _names_class(self, expr: ast.expr, info: ClassInfo) -> bool:
        """``C`` itself, or ``cls`` in one of its class methods."""
        if not isinstance(expr, ast.Name):
            return False
        resolved = self.evidence.scopes.resolve(expr.id, expr)
        if resolved is None:
            return False
        scope = resolved[0]
        if scope is self.evidence.scopes.module:
            return expr.id == info.node.name
        parameters = function_parameters(scope) if scope in self.survey.class_methods else []  # type: ignore[arg-type]
        return scope in info.methods.values() and bool(parameters) and parameters[0].arg == expr.id

    def _holder_escape(self, owner: str) -> Optional[str]:
        """A module-level instance that holds the container, pickled, copied or walked through its
        ``__dict__`` (also by its own methods, through ``self``), takes it along."""
        holders = set(self.survey.holders(owner))
        for node in walk(self.evidence.scopes.module):
            if isinstance(node, ast.Call) and any(isinstance(a, ast.Name) and a.id in holders for a in node.args):
                callee = self.survey.names.qualify(node.func) or ""
                if callee not in HOLDER_SAFE_CALLS:  # ``pickle.dumps(holder)``, ``deepcopy(holder)``, ``dump(holder)``
                    return f"the instance that holds it is passed to `{text(node.func)}()` (line {node.lineno}), which may take it along"
            if isinstance(node, ast.Attribute) and node.attr == "__dict__" and isinstance(node.value, ast.Name) and node.value.id in holders:
                return f"the instance that holds it is read whole as `{text(node)}` (line {node.lineno}), which may take it along"
        classes = {self.survey.singletons[holder] for holder in holders}
        for info in {ancestor.name: ancestor for name in classes for ancestor in self.survey.lineage(self.survey.classes[name])}.values():
            for method in info.methods.values():
                found = _self_taken(method, self.survey)
                if found is not None:
                    return f"`{info.name}.{method.name}` reads its instance whole with `{text(found)}` (line {found.lineno}), which may take it along"
        return None


def _may_be_buffers(held: Held) -> bool:
    """Whether a fill may hold a module's buffers: a tensor that is no parameter, or an object no evidence
    types (a conversion of the module replaces buffers, and converts parameters in place)."""
    found = held.object or held.in_tuple
    return found is None or found.kind == TENSOR


def _global_name(uses: SlotUses) -> str:
    """The container's name, where it is a module global (what is taken from it was owned when put there)."""
    return uses.slot.name if uses.slot.where == "module" else ""


def _why_not_weak_fixable(uses: SlotUses, word: str) -> Optional[str]:
    """What a ``WeakKeyDictionary`` / ``WeakSet`` does as itself that its fix does as a dict or set would."""
    if uses.printed or uses.equalities:
        line = (uses.printed or uses.equalities)[0]
        return f"it is printed or compared with `==` (line {line}), which its fix does as a dict or set would, not as a {word}"
    built = uses.operators[:1] + [line for line, method in uses.methods if method in _NEW_WEAK_SET_METHODS][:1]
    if built:
        return f"it builds a new container (line {min(built)}), which is another {word} (its entries go with their keys); its fix's is a plain dict or set"
    if uses.views_kept:
        line, view = uses.views_kept[0]
        return f"{view} is used other than by iterating it at once (line {line}): a {word}'s is a one-shot generator, its fix's a view"
    return None


def _without_factory(node: ast.expr, kind: ContainerType) -> bool:
    """``defaultdict()`` / ``defaultdict(None)``: it still prints as a defaultdict."""
    if kind is not ContainerType.DEFAULT_MAP or not isinstance(node, ast.Call):
        return False
    return not node.args or (isinstance(node.args[0], ast.Constant) and node.args[0].value is None)


def _self_taken(method: ast.AST, survey: Survey) -> Optional[ast.expr]:
    """``self.__dict__``, ``vars(self)``, ``copy.copy(self)``, ``pickle.dumps(self)`` in a method: its
    instance taken whole, with the container it holds."""
    parameters = function_parameters(method) if method not in survey.unbound_methods else []  # type: ignore[arg-type]
    if not parameters:
        return None
    receiver = parameters[0].arg
    for node in walk(method):
        if isinstance(node, ast.Attribute) and node.attr == "__dict__" and isinstance(node.value, ast.Name) and node.value.id == receiver:
            return node
        if isinstance(node, ast.Call) and any(isinstance(a, ast.Name) and a.id == receiver for a in node.args):
            callee = survey.names.qualify(node.func) or ""
            if callee in _SELF_TAKING_CALLS or callee.startswith(SERIALIZER_PREFIXES):
                return node
    return None


def _key_reference(member: Member) -> Optional[str]:
    """The part of a value that refers to its own key, so that even a weak key would never be collected."""
    if member.value is None or not isinstance(member.expr, ast.Name):
        return None
    found = _refers_to(member.value, member.expr.id)
    return text(found) if found is not None else None


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
        return value if any(isinstance(node, ast.Name) and node.id == key for node in walk(value)) else None
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


# The edits of a fix the checks above allow: the container's constructor and its annotations.


def runtime_class(container: ContainerType, code: str) -> Optional[str]:
    """The runtime class a finding's fix builds: a map whose values pin (WG008) becomes a ``WeakValueMap``,
    any other container its type's counterpart."""
    if code == "WG008" and container in (ContainerType.MAP, ContainerType.DEFAULT_MAP):
        return "WeakValueMap"
    return container.runtime_name


def constructor_edit(constructor: Constructor, target: Optional[str] = None) -> Union[Edit, str]:
    """The edit that turns ``constructor`` into the runtime (``target``, else its type's counterpart), or why
    there is none."""
    node, target = constructor.node, target or constructor.type.runtime_name
    if target is None:
        return f"`{constructor.word}` has no counterpart in the runtime"
    if isinstance(node, (ast.Dict, ast.DictComp, ast.Set, ast.SetComp, ast.List, ast.ListComp)):
        return Edit(EditKind.WRAP, Span.of(node), target)
    assert isinstance(node, ast.Call)
    if node.keywords or any(isinstance(argument, ast.Starred) for argument in node.args):
        return f"`{constructor.word}(...)` is called with keyword or unpacked arguments"
    displaced = root_name(node.func)
    if isinstance(node.func, ast.Attribute) and node.func.attr == "fromkeys":
        return Edit(EditKind.RENAME_CALLEE, Span.of(node), f"{target}.fromkeys", displaced)
    if constructor.type is ContainerType.DEFAULT_MAP:
        return Edit(EditKind.DEFAULT_FACTORY, Span.of(node), target, displaced)
    return Edit(EditKind.RENAME_CALLEE, Span.of(node), target, displaced)


#: Generic names in annotations that the fix renames, by the runtime class they become.
_GENERICS = {
    "WeakIdMap": {
        "typing.Dict", "builtins.dict", "typing.DefaultDict", "collections.defaultdict", "typing.OrderedDict",
        "collections.OrderedDict", "typing.MutableMapping", "collections.abc.MutableMapping",
    },
    "WeakIdSet": {"typing.Set", "builtins.set", "typing.MutableSet", "collections.abc.MutableSet"},
    "WeakIdList": {
        "typing.List", "builtins.list", "typing.MutableSequence", "collections.abc.MutableSequence", "typing.Deque",
        "collections.deque",
    },
    "WeakValueMap": {
        "typing.Dict", "builtins.dict", "typing.DefaultDict", "collections.defaultdict", "typing.OrderedDict",
        "collections.OrderedDict", "typing.MutableMapping", "collections.abc.MutableMapping",
    },
    "StrictWeakIdMap": {"weakref.WeakKeyDictionary", "typing.MutableMapping", "collections.abc.MutableMapping"},
    "StrictWeakIdSet": {"weakref.WeakSet", "typing.MutableSet", "collections.abc.MutableSet"},
}
_WRAPPERS = {"typing.Optional", "typing.Union", "typing.ClassVar", "typing.Final"}


def annotation_edits(annotation: ast.expr, target: str, names: Names) -> list[Edit]:
    """Rename the container type inside an annotation: ``Optional[Dict[K, V]]`` -> ``Optional[WeakIdMap[K, V]]``."""
    if isinstance(annotation, (ast.Name, ast.Attribute)):
        renamed = names.qualify(annotation) in _GENERICS[target]
        return [Edit(EditKind.RENAME_GENERIC, Span.of(annotation), target, root_name(annotation))] if renamed else []
    if isinstance(annotation, ast.Subscript):
        if names.qualify(annotation.value) in _WRAPPERS:
            inner = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
            return [edit for part in inner for edit in annotation_edits(part, target, names)]
        return annotation_edits(annotation.value, target, names)
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return annotation_edits(annotation.left, target, names) + annotation_edits(annotation.right, target, names)
    return []
