"""WG011: an attribute of a long-lived instance that a method sets to a module or tensor handed to it, or
to a model it loads.

A session, context or engine object kept for the whole process (a module-level instance, one a class keeps
in ``cls._instance``, one a singleton metaclass keeps) holds whatever its methods store on ``self``. When a
method stores what its caller handed it (``def initialize(self, model: nn.Module): self.model = model``) and
nothing ever sets the attribute back (``self.model = None``, ``del self.model``, outside ``__init__``), the
caller's model stays alive after the caller is done with it, until the next call replaces it. A model a
method loads on first use (``if self.model is None: self.model = load()``) stays for the process the same
way: WG012's lazily loaded global, kept on an instance. WG001-WG008 see containers; this is the same pin in
a plain attribute.

A tensor a method builds for the instance itself (``self.buffer = torch.empty(n, pin_memory=True)``) is a
workspace kept for the process: WG007, as for a module-level name; not in a program (its own state, gone
when it exits), nor what the instance makes as it is built (``__init__``, or a method ``__init__`` calls).
What it is given at import (a module-level object, owned by the module anyway) and an instance that is
itself a module (a module-level model owns its tensors by design) are not reported. Found from one module:
a store through the singleton's name in another module, or a release there, is not seen.

A module-level instance of another project module's class is judged here from that class's summary
(``index/summaries.stored_later_by``, read on demand): what its own methods store on ``self`` after
``__init__`` and never set back, known by name, and the containers on ``self`` they fill with tensors they
allocate (WG007, a workspace). The finding is on the call that makes the instance.
"""
from __future__ import annotations

import ast
from typing import Callable, Iterator, Optional

from ..analysis.evidence import Evidence, Obj, text
from ..analysis.imported_kinds import ImportedStore
from ..analysis.framework_types import PARAMETER, TENSOR, describe
from ..analysis.survey import PLAIN_VALUES, ClassInfo, Survey, instance_keeping_metaclass
from ..syntax.scopes import FunctionNode, attributes_set_back, every_statement, function_parameters, names_read_at_import, walk
from . import codes
from .findings import Evidence as Proof, Finding

#: The rule page of WG011 (``docs.py`` gathers it with the other families').
DOCS: dict[str, str] = {
    "WG011": """\
*An attribute of a long-lived instance (module-level, kept by its class, or by a singleton metaclass) that a
method sets to a module, parameter or tensor its caller handed it, or to a model it loads, and that nothing
sets back.*

- **Why it matters**: the instance lives as long as the process, so the model (or the tensor) a caller
  handed it stays alive after the caller is done, until the next call replaces it: a session or context
  object that keeps the last model it was given keeps all its parameters and, through them, their
  gradients and optimizer state. A model a method loads on first use stays (often on the GPU) after the
  work that needed it, as WG012's lazily loaded global does.
- **Example**: `SESSION = Session()` with `def initialize(self, model: nn.Module): self.model = model`;
  `check = Censor().check` with `def check(self, x): if self.model is None: self.model = load_checker()`.
  The class may be another project module's (`gen = End2End(args)` with `from .inference import End2End`,
  whose `load_controlnet` sets `self.controlnet = ControlNet(...).half().to(device)`): the finding is then
  on the line that makes the instance, since the class's module cannot see who keeps one of its instances.
- **Fix**: none automatic. Set the attribute back to `None` when the work that needed it is done (a
  `reset()`, `finalize()` or `__exit__`), or hold it weakly (`weakref.ref(model)`) if the instance only
  needs to reach it while the caller keeps it.
- **Fix safety**: not applicable.
- **Known false positives**: an instance meant to hold its model for the life of the process (an
  inference worker's context: an intended pin). An attribute set back from another module (`SESSION.model =
  None` elsewhere) is not seen; silence it with `# noqa: WG011`. For another module's class, what its
  methods store is known by name only (a framework class or factory, a project class deriving from one or
  holding one, their `from_pretrained`, or a parameter's annotation), a store in a base class's method is
  not seen, and a module that names no framework word at all is not read.
""",
}


def judge_singleton_state(module: ast.Module, survey: Survey, evidence_of: Callable[[], Evidence]) -> list[Finding]:
    """WG011 for each attribute a long-lived instance's method sets to an object its caller handed it, with
    no release of that attribute in the class (outside ``__init__``, unless the class calls ``__init__``
    again) nor through the instance's name in the module."""
    found = _kept_by_imported_classes(module, survey)
    holders = _long_lived_classes(survey)
    if not holders:
        return found
    evidence: Optional[Evidence] = None
    for info, holder in holders.items():
        lineage = list(survey.lineage(info))
        stores = [store for store in _stores_on_self(lineage, survey) if not isinstance(store[1], PLAIN_VALUES)]
        if not stores or info.kind is not None:  # a module-level model owns what it holds by design
            continue
        released = _released_by_the_class(lineage, survey)
        constructing = _called_by_init(lineage)
        released_here: Optional[set[str]] = None  # through the instance's name: one walk of the module, if asked
        for target, value, method in stores:
            attribute = target.attr
            if attribute in released:
                continue
            evidence = evidence or evidence_of()
            held = evidence.of(value)
            if not isinstance(held, Obj) or held.module_held:
                continue
            handed = held.foreign and not held.built and not held.owned
            released_here = attributes_set_back(module.body, lambda target: text(target) == holder) if released_here is None else released_here
            if attribute in released_here:
                continue
            workspace = not handed and held.kind in (TENSOR, PARAMETER)  # what the instance builds for itself
            if workspace and (survey.runs_as_script or method.name in constructing):
                # a program's own state, gone when it exits (a tutorial's dataset and its labels); or what the
                # instance makes as it is built (``__init__`` calls ``self.reset()``), at import for a module's
                continue
            found.append(_finding(info, holder, target, method, held, handed, workspace))
            released.add(attribute)  # one finding per attribute: its first store
    return found


def _kept_by_imported_classes(module: ast.Module, survey: Survey) -> list[Finding]:
    """WG011 for a module-level instance of another project module's class whose methods store a framework
    object on it after ``__init__`` and never set it back (``SESSION = Session()`` here, ``def load(self):
    self.model = Net()`` there), unless this module sets it back through the instance's name. Reported here,
    at the call that makes the instance: the class's module cannot see who keeps an instance of it for the
    process, and the index answers forward only, from what this module imports."""
    if survey.runs_as_script or not survey.imported_singletons:
        return []  # a program's globals: its own state, gone when it exits
    found: list[Finding] = []
    used_at_import: Optional[set[str]] = None  # read once, and only for an instance that keeps something
    for holder, (qualified, call) in survey.imported_singletons.items():
        stores = survey.imported.stored_later(qualified)  # nothing for most calls: functions, other packages
        if not stores or survey.imported.class_kind(qualified) is not None:
            continue  # a module-level model owns what it holds by design
        used_at_import = names_read_at_import(module) if used_at_import is None else used_at_import
        if holder in used_at_import:
            continue  # the module does its work with the instance as it runs: a program's (a tutorial's) own
        released = attributes_set_back(module.body, lambda target: text(target) == holder)
        for store in stores:
            if store.attribute in released:
                continue
            where = f"`{store.module}` line {store.line}"
            if store.filled:
                if not store.handed and store.kind in (TENSOR, PARAMETER):
                    found.append(_imported_workspace(holder, call, store, where))
                continue
            found.append(Finding(
                code="WG011",
                line=call.lineno,
                col=call.col_offset,
                name=f"{holder}.{store.attribute}",
                kind="attribute",
                scope="instance",
                holds=(store.kind,),
                evidence=Proof(call.lineno, f"`{store.cls}.{store.method}` sets `self.{store.attribute}` ({where})"),
                message=(
                    f"WG011 long-lived `{holder}` keeps `self.{store.attribute}`, which `{store.cls}.{store.method}` "
                    f"({where}) sets to {describe(store.kind)} {'its caller hands it' if store.handed else 'it loads'}, "
                    "and nothing sets it back"
                ),
                fix_reason="set it back to None when the work that needs it is done, or hold it weakly",
            ))
    return found


def _imported_workspace(holder: str, call: ast.expr, store: ImportedStore, where: str) -> Finding:
    """WG007 at the call that makes a long-lived instance of another module's class whose method fills a
    container on the instance with tensors it allocates (Megatron's ``_GLOBAL_MEMORY_BUFFER =
    GlobalMemoryBuffer()``, whose ``get_tensor`` does ``self.buffer[(name, dtype)] = torch.empty(...)``): a
    workspace kept for the process, as the same class's instance in its own module is."""
    proof = Proof(call.lineno, f"`{store.cls}.{store.method}` fills `self.{store.attribute}` ({where})")
    evidence = f"(`{store.cls}.{store.method}` fills it, {where})"
    return codes.workspace(call, f"{holder}.{store.attribute}", "container", "module-level instance's", "instance", store.kind, proof, evidence)


def _long_lived_classes(survey: Survey) -> dict[ClassInfo, str]:
    """The module's classes whose instances live for the process, each with how code names its instance:
    module-level instances and class-held ones (``survey.singletons``), and classes made by a metaclass that
    keeps their one instance. Framework classes (a module-level model) own what they hold by design."""
    holders: dict[ClassInfo, str] = {}
    for name, class_name in survey.singletons.items():
        holders.setdefault(survey.classes[class_name], name)
    for info in survey.classes.values():
        if info not in holders and any(k.arg == "metaclass" for a in survey.lineage(info) for k in a.node.keywords):
            if instance_keeping_metaclass(survey, info) is not None:
                holders[info] = f"{info.name}()"
    return {info: holder for info, holder in holders.items() if "<locals>" not in info.name}


def _stores_on_self(lineage: list[ClassInfo], survey: Survey) -> Iterator[tuple[ast.Attribute, ast.expr, FunctionNode]]:
    """``self.X = value`` in the instance methods other than ``__init__`` (what ``__init__`` is given, the
    code that builds the instance hands over once, at import for a module-level instance)."""
    for cls in lineage:
        for method in cls.methods.values():
            if method in survey.unbound_methods or method.name == "__init__" or not function_parameters(method):
                continue
            me = function_parameters(method)[0].arg
            for node in every_statement(method.body):  # stores are statements: no expression is entered
                if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for target in targets:
                        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == me:
                            yield target, node.value, method


def _called_by_init(lineage: list[ClassInfo]) -> set[str]:
    """The methods ``__init__`` calls on the instance (``self.reset()``): what they store, it stores."""
    called: set[str] = set()
    for cls in lineage:
        init = cls.methods.get("__init__")
        if init is None or not function_parameters(init):
            continue
        me = function_parameters(init)[0].arg
        for statement in every_statement(init.body):
            call = statement.value if isinstance(statement, ast.Expr) else None
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) and call.func.value.id == me:
                called.add(call.func.attr)
    return called


def _released_by_the_class(lineage: list[ClassInfo], survey: Survey) -> set[str]:
    """Attributes the class sets to ``None`` or deletes outside ``__init__`` (or in it, when the class calls
    ``__init__`` again to reset)."""
    released: set[str] = set()
    reinitialised = any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__"
        and not (isinstance(node.func.value, ast.Call) and text(node.func.value.func) == "super")
        for cls in lineage for method in cls.methods.values() for node in walk(method)
    )
    for cls in lineage:
        for method in cls.methods.values():
            if method.name == "__init__" and not reinitialised:
                continue
            parameters = function_parameters(method)
            me = parameters[0].arg if parameters else None
            released |= attributes_set_back(method.body, lambda target: isinstance(target, ast.Name) and target.id == me)
    return released


def _finding(info: ClassInfo, holder: str, target: ast.Attribute, method: FunctionNode, held: Obj, handed: bool, workspace: bool) -> Finding:
    """WG011 for what the instance keeps of its caller's (or loads); WG007 for a tensor it builds for itself in
    a method and keeps (``def setup_buffer(self, n): self.buffer = torch.empty(n, pin_memory=True)``): a
    workspace kept for the process, as in a container."""
    line = target.lineno
    name = f"{holder}.{target.attr}"
    if workspace:
        place = "singleton's" if "(" in holder or "." in holder else "module-level instance's"
        code, reason = "WG007", codes.WORKSPACE
        message = codes.container_message(code, "attribute", place, name, (held.kind,), f"({held.cited(line)}), set by `{method.name}`")
    else:
        code, reason = "WG011", "set it back to None when the work that needs it is done, or hold it weakly"
        message = (
            f"WG011 long-lived `{holder}` keeps `self.{target.attr}`, which `{info.name}.{method.name}` sets to "
            f"{describe(held.kind)} {'its caller hands it' if handed else 'it loads'} ({held.cited(line)}), and nothing sets it back"
        )
    return Finding(
        code=code,
        line=line,
        col=target.col_offset,
        name=name,
        kind="attribute",
        scope="instance",
        holds=(held.kind,),
        evidence=Proof(held.line or line, held.why),
        message=message,
        fix_reason=reason,
    )
