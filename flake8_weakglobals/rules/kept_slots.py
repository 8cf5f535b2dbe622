"""WG012: a module-level name, a class attribute, or an attribute of a module-level instance that a
function sets to a model, and nothing sets back (WG007 when it is a tensor the function builds itself: a
workspace kept in a slot).

A module is imported once and kept for the process, and so is a class: a name a function fills with
``global model; model = load()``, or an attribute a classmethod fills with ``cls.checker = Checker()``, keeps
that object after the work that wanted it is done, outside any cache that could free it. The commonest shape
is a model loaded on first use (``if model is None: model = Net()``) and kept for the process; the other is a
slot that keeps the last model or batch a caller handed over (``_last = batch``). WG001-WG011 see
containers, caches, hooks and singletons' attributes; this is the same pin in the plainest place.

Not reported: a slot bound to an object at import (the module's own, replaced later: a default), one some
function of the module sets back (``X = None``, ``del X``, ``X = {}``) or restores, what holds no framework
object, what the module keeps anyway (a module-level model named again), and the globals of a module run as
a program. A tensor the function builds itself (``_window = torch.hann_window(n)``) is reported as WG007,
the workspace a container would be. Found from the module that stores: a class of another project module is
a slot too (``SparseHelper._cur_active = mask``), but that class's own default is not read, and a store or
an unload in another module (``worker.model = None`` elsewhere) is not seen. A module-level instance, of
this module (``state = State()``) or imported from another project module (apex's ``from ._amp_state import
_amp_state``; ``summaries.module_level_instances``, read on demand), is such a slot too, attribute by
attribute (``_amp_state.handle = handle``): empty unless its class's ``__init__`` here sets it. So is a
module-level function's own attribute (``if not hasattr(get_model, "model"): get_model.model = Net()``):
the function lives as long as its module.
"""
from __future__ import annotations

import ast
from dataclasses import replace
from typing import Callable, Optional

from ..analysis.evidence import Evidence, Obj, is_attribute_of, text
from ..analysis.fill_contents import object_in_tuple
from ..analysis.framework_types import MODULE, PARAMETER, TENSOR, describe
from ..analysis.survey import PLAIN_VALUES, SlotStore, Survey
from ..syntax.scopes import function_parameters, walk
from . import codes
from .findings import Evidence as Proof, Finding

#: The rule page of WG012 (``docs.py`` gathers it with the other families').
DOCS: dict[str, str] = {
    "WG012": """\
*A module-level name or class attribute, empty at import (`None`), or an attribute of a module-level
instance or of a module-level function (`get_model.model = Net()`, a lazy singleton), that a function sets
to a module (or an object holding one), or to a tensor its caller handed it, and that nothing sets back.*

- **Why it matters**: a module and its classes live as long as the process. A model loaded on first use
  into a global (`global model; model = Net()`), or into a class attribute (`cls.checker = ...`), stays in
  memory (often on the GPU) after the work that needed it, outside any cache that could evict it; a slot that
  keeps the last batch or model it was handed keeps it until the next call.
- **Example**: `model = None` with `def upscale(x): global model; if model is None: model = Upscaler()`;
  `_amp_state.handle = handle` in a function, where `_amp_state = AmpState()` is a module-level instance;
  `setattr(Owner, "output", value)` with the name spelled out is the store `Owner.output = value`.
- **Fix**: none automatic. Give the slot an unload that sets it back to `None` or to an empty container (and
  call it when the work is done), or keep the model in the object that uses it. If the process is meant to
  keep it (a server's one model), say so with `# noqa: WG012` on the line reported.
- **Fix safety**: not applicable.
- **Known false positives**: a model the process keeps on purpose for its whole life (an intended pin: the
  finding says where it is, `# noqa` says it is meant). An unload in another module (`mod.model = None`) is
  not seen.
""",
}


def judge_kept_slots(module: ast.Module, survey: Survey, evidence_of: Callable[[], Evidence]) -> list[Finding]:
    """WG012 (WG007 for a tensor the function builds) for each slot a function fills with a framework object and
    no function of the module sets back:
    one finding per slot, at its definition (where ``# noqa`` belongs), else at its first such store."""
    if not survey.slot_stores:
        return []
    set_back = {store.name for store in survey.slot_stores if store.sets_back}
    found: list[Finding] = []
    reported: set[str] = set()
    for store in survey.slot_stores:
        if store.name in set_back or store.name in reported or isinstance(store.value, PLAIN_VALUES) or store.value is None:
            continue
        if survey.ends_its_run and ("." not in store.name or store.instance_of or store.of_function):
            continue  # a program's globals: its own state, gone when it exits (not a server's)
        definition = _definition(module, survey, store)
        if definition is not None and not _empty(definition[1]):
            continue  # bound to something at import: the module's own object, replaced later (a default)
        if store.instance_of and _set_as_built(survey, store):
            continue  # the instance's own from construction, replaced later: a default again
        value = evidence_of().of(store.value)
        if value is None and "." not in store.name:  # ``global model; model = make(cfg); model.to(device).eval()``
            value = evidence_of().prepared_as_model(store.function, store.name)
        if value is None:
            value = _layer_parameter(store.value, evidence_of())
        held = value if isinstance(value, Obj) else object_in_tuple(value)  # ``X = (bank, labels, classes)``
        if held is None or held.module_held:
            continue
        built_here = not held.foreign or (held.built and not held.from_foreign)
        workspace = held.kind in (TENSOR, PARAMETER) and built_here
        if built_here and store.function.name in _TEST_SETUP:
            continue  # a test class's (module's) own data, tensors or models, as a test module's tables built at import
        if _restored(store, survey):
            set_back.add(store.name)
            continue
        reported.add(store.name)
        where = definition[0] if definition is not None else None
        found.append(_workspace(store, held, where) if workspace else _finding(store, held, where, survey))
    return found


#: pytest's and unittest's once-per-class (or module) set-up: what they build is the tests' own data.
_TEST_SETUP = frozenset({"setup_class", "setUpClass", "setup_module", "setUpModule"})


def _restored(store: SlotStore, survey: Survey) -> bool:
    """Whether the functions that fill the slot also restore it: a store in a ``finally`` (``try: X = m;
    yield; finally: X = old``), or of what one of them read from the slot before (``old = X`` ... ``X = old``,
    ``self.previous = X`` in ``__enter__``, ``X = self.previous`` in ``__exit__``): the slot holds the
    object only while that work runs, as a context manager's state."""
    spelled = ast.dump(store.target)
    loaded = spelled.replace("ctx=Store()", "ctx=Load()")
    functions = {other.function: None for other in survey.slot_stores if other.name == store.name}
    assignments = [node for function in functions for node in walk(function) if isinstance(node, ast.Assign)]
    stores = [node for node in assignments if any(ast.dump(target) == spelled for target in node.targets)]
    saves = [node for node in assignments if ast.dump(node.value) == loaded]
    branches = [(node.body, node.orelse) for function in functions for node in walk(function) if isinstance(node, ast.If) and node.orelse]
    for save in saves:
        saved = {ast.dump(target).replace("ctx=Store()", "ctx=Load()") for target in save.targets}
        if any(ast.dump(node.value) in saved and not _exclusive(save, node, branches) for node in stores):
            return True
    in_finally = {
        id(inner) for function in functions for node in walk(function) if isinstance(node, ast.Try)
        for statement in node.finalbody for inner in walk(statement)
    }
    return any(id(node) in in_finally for node in stores)


def _layer_parameter(value: ast.expr, evidence: Evidence) -> Optional[Obj]:
    """``Cls.shared = self.values.weight``, where ``self.values`` is a module: its parameter, when the layer
    has one (``bias=False`` leaves ``None``). Read for the slot only: a reason to report what it may keep,
    not a proof a fix could rest on."""
    if not (isinstance(value, ast.Attribute) and value.attr in ("weight", "bias")):
        return None
    layer = evidence.of(value.value)
    if not (isinstance(layer, Obj) and layer.kind == MODULE):
        return None
    return replace(layer, kind=PARAMETER, why=f"`{text(value)}`, a parameter of the module: {layer.why}", holds="", iterates="")


def _exclusive(one: ast.stmt, other: ast.stmt, branches: list[tuple[list[ast.stmt], list[ast.stmt]]]) -> bool:
    """Whether the two statements lie in opposite branches of one ``if``: ``if Cls.shared is None:
    Cls.shared = self.weight`` ``else: self.weight = Cls.shared`` shares the first object with every later
    instance; it does not save the slot to put it back."""
    def within(statement: ast.stmt, block: list[ast.stmt]) -> bool:
        return any(statement is node for part in block for node in walk(part))
    return any(within(one, body) and within(other, orelse) or within(one, orelse) and within(other, body) for body, orelse in branches)


def _set_as_built(survey: Survey, store: SlotStore) -> bool:
    """Whether the ``__init__`` of the instance's class (of this module, or a base here) sets the attribute
    to something other than ``None``. A class of another module is not read: its instance's slot counts as
    empty until a function fills it."""
    info = survey.classes.get(store.instance_of)
    attribute = store.name.rpartition(".")[2]
    for cls in survey.lineage(info) if info is not None else []:
        init = cls.methods.get("__init__")
        parameters = function_parameters(init) if init is not None else []
        for node in walk(init) if parameters else []:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) and node.value else []
            if targets and not SlotStore.is_none(node.value) and any(is_attribute_of(t, parameters[0].arg, attribute) for t in targets):  # type: ignore[attr-defined]
                return True
    return False


def _place(store: SlotStore) -> tuple[str, str]:
    """How a message names the slot: a module-level name, a class attribute, a module-level instance's or a
    module-level function's attribute."""
    if store.instance_of:
        return "module-level instance's", "attribute"
    if store.of_function:
        return "module-level function's", "attribute"
    return ("class", "attribute") if "." in store.name else ("module-level", "name")


def _defined(store: SlotStore) -> str:
    """`` (`_amp_state` defined at `apex.amp._amp_state` line 25)`` for an instance another module binds."""
    return f" (`{store.name.partition('.')[0]}` defined at {store.instance_defined})" if store.instance_defined else ""


def _definition(module: ast.Module, survey: Survey, store: SlotStore) -> Optional[tuple[ast.expr, Optional[ast.expr]]]:
    """The slot's own binding at import, ``X = None`` in the module or in the class body for ``Owner.X``: its
    target and the value it is bound to (None for a bare annotation)."""
    owner_name, _, attribute = store.name.rpartition(".")
    owner = survey.classes.get(owner_name) if owner_name else None
    if owner_name and owner is None:
        return None  # a class of another module, or an instance: no body of theirs binds the slot
    body = owner.node.body if owner is not None else module.body
    name = attribute if owner_name else store.name
    for statement in body:
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target] if isinstance(statement, ast.AnnAssign) else []
        for target in targets:
            if isinstance(target, ast.Name) and target.id == name:
                return target, statement.value  # type: ignore[union-attr]
    return None


def _empty(value: Optional[ast.expr]) -> bool:
    """``X = None``, or ``X: Optional[nn.Module]`` alone: the slot starts empty and a function fills it."""
    return value is None or SlotStore.is_none(value)


def _workspace(store: SlotStore, held: Obj, definition: Optional[ast.expr]) -> Finding:
    """WG007 for a tensor the function builds itself and keeps in the slot (``_window = torch.hann_window(n)``):
    a workspace, as in a container, kept for the process; nobody else owns it, so nothing else is pinned."""
    where = definition if definition is not None else store.target
    line = store.target.lineno
    place, kind = _place(store)
    evidence = f"({held.cited(line)}), set by `{store.function.name}`{_defined(store)}"
    return codes.workspace(where, store.name, kind, place, "class" if place == "class" else "module", held.kind, Proof(held.line or line, held.why), evidence)


def _of_receiver(store: SlotStore, survey: Survey) -> bool:
    """``Cls.shared = self.values.weight`` in a method: the value is the instance's own, not what a caller
    handed over."""
    if store.function not in survey.method_owner:
        return False
    parameters = function_parameters(store.function)
    root = store.value
    while isinstance(root, ast.Attribute):
        root = root.value
    return bool(parameters) and root is not store.value and isinstance(root, ast.Name) and root.id == parameters[0].arg


def _finding(store: SlotStore, held: Obj, definition: Optional[ast.expr], survey: Survey) -> Finding:
    where = definition if definition is not None else store.target
    line = store.target.lineno
    place, kind = _place(store)
    handed = " its caller hands it" if held.kind in (TENSOR, PARAMETER) and not _of_receiver(store, survey) else ""
    return Finding(
        code="WG012",
        line=where.lineno,
        col=where.col_offset,
        name=store.name,
        kind=kind,
        scope="class" if place == "class" else "module",
        holds=(held.kind,),
        evidence=Proof(held.line or line, held.why),
        message=(
            f"WG012 {place} {kind} `{store.name}`{_defined(store)} keeps {describe(held.kind)}{handed} for the rest of the process: "
            f"`{store.function.name}` sets it at line {line} ({held.cited(line)}), and nothing sets it back"
        ),
        fix_reason="set it back to None when the work that needs it is done",
    )
