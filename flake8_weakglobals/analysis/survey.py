"""The cheap first pass: statements only, never expressions, to find what could be a pinning container.

It records imports, classes (and which derive from framework types), methods, ``lru_cache``'d functions,
names bound to containers at module level or through ``global`` in a function (a global that starts as
``None`` becomes a candidate there), class attributes bound to containers (or to ``None`` and given a
container later), ``self.X = container`` in methods, and module-level instances of local classes. Most files stop here: with no candidate, the expensive pass never runs.
"""
from __future__ import annotations

import ast
import functools
import weakref
from dataclasses import dataclass, field
from typing import Callable, Iterator, Optional

from ..index.summaries import KEEPING_METHODS, keeps_created_instances, wraps_a_cache
from ..syntax.container_expressions import ContainerType, classify, holds_nothing, root_name
from ..syntax.qualified_names import Names, base_class
from ..syntax.scopes import COMPOUND, FunctionNode, attributes_set_back, function_parameters, is_main_guard, nested_blocks, walk
from .framework_types import Vocabulary
from .imported_kinds import CACHE_DECORATORS, NOWHERE, Imported, ImportedContainer, ImportedKeeper

_FILLING_METHODS = KEEPING_METHODS | {"update"}  # ``update`` fills with its argument's items
#: An app server's caches (Streamlit's): they keep what the function returns for as long as the server runs,
#: under a hash of the arguments, never the arguments themselves. ``cache_data`` (``experimental_memo``)
#: stores a pickled copy and hands back copies, so it keeps no object of the caller's.
RESULT_CACHES = frozenset({"streamlit.cache", "streamlit.cache_resource", "streamlit.experimental_singleton"})


#: Packages whose programs serve requests until they are stopped (``demo.launch()``, ``uvicorn.run(app)``)
_SERVING_FRAMEWORKS = ("gradio", "streamlit", "flask", "fastapi", "uvicorn")


@dataclass(frozen=True)
class FrameworkLineage:
    kind: Optional[str] = None  # framework kind of the instances, for subclasses of nn.Module, Tensor, ...
    base: str = ""  # the base that made it one, as written: "nn.Module"
    through: str = ""  # for a base from another project module: ``pkg.base.Rotary`` derives from ...


NOT_FRAMEWORK = FrameworkLineage()


@dataclass(eq=False)
class ClassInfo:
    node: ast.ClassDef
    qualname: str  # ``A.Meta`` for a class nested in ``A``: two nested ``Meta`` classes are two classes
    local_bases: list[str] = field(default_factory=list)
    methods: dict[str, FunctionNode] = field(default_factory=dict)
    self_attributes: set[str] = field(default_factory=set)  # assigned as ``self.X``: shadow class attributes
    #: Works out the lineage on first use: a base imported from another project module costs a summary, so
    #: only the classes a judgement needs are resolved, and a module with no candidates asks nothing.
    lineage_of: Callable[[ClassInfo], FrameworkLineage] = field(default=lambda info: NOT_FRAMEWORK, repr=False)
    _lineage: Optional[FrameworkLineage] = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return self.qualname

    @property
    def lineage(self) -> FrameworkLineage:
        if self._lineage is None:
            self._lineage = NOT_FRAMEWORK  # a local inheritance cycle ends here
            self._lineage = self.lineage_of(self)
        return self._lineage

    @property
    def kind(self) -> Optional[str]:
        return self.lineage.kind

    @property
    def framework_base(self) -> str:
        return self.lineage.base

    @property
    def framework_through(self) -> str:
        return self.lineage.through


@dataclass(frozen=True)
class CachedFunction:
    function: FunctionNode
    decorator: ast.expr
    owner: Optional[ClassInfo]
    wrapper: Optional[str] = None  # the project's own decorator that applies ``lru_cache``, qualified
    keeps_arguments: bool = True  # False for a cache keyed by a hash of them (``RESULT_CACHES``)
    #: The module-level name a cache made by a call is bound to (``X_cached = lru_cache(maxsize=256)(X)``):
    #: ``decorator`` is then the call's callee, and ``function`` stays uncached under its own name
    bound_to: Optional[str] = None


@dataclass(frozen=True)
class KeptArgument:
    """``Store.put(self)``: an argument passed to another module's function that keeps it."""

    call: ast.Call
    argument: ast.expr
    keeper: ImportedKeeper


@dataclass(frozen=True)
class SlotStore:
    """``global X; X = value`` in a function, or ``cls.X = value`` / ``Owner.X = value`` for a class of the
    module: a long-lived slot a function fills. ``value`` is None for ``del``; ``X = None`` sets it back, and
    so does an empty container (``Controller._state = {}`` in a test's ``tearDown``): what it held is let go."""

    name: str  # ``X``, or ``Owner.X`` for a class attribute (``state.X`` for a module-level instance's)
    target: ast.expr
    value: Optional[ast.expr]
    function: FunctionNode
    #: For an attribute of a module-level instance (``_amp_state.handle = handle``): the instance's class, as
    #: named here (one of this module) or absolutely (one of another project module, whose module binds it)
    instance_of: str = ""
    #: For an instance another module binds: where, as a message says it (```pkg._state` line 9``)
    instance_defined: str = ""
    #: An attribute of a module-level function, which lives as long as its module: the lazy singleton
    #: ``if not hasattr(get_tokenizer, "tokenizer"): get_tokenizer.tokenizer = Tokenizer(path)``
    of_function: bool = False

    @property
    def sets_back(self) -> bool:
        return self.value is None or holds_nothing(self.value)

    @staticmethod
    def is_none(value: Optional[ast.expr]) -> bool:
        return isinstance(value, ast.Constant) and value.value is None


@dataclass
class Survey:
    names: Names = field(default_factory=Names)
    classes: dict[str, ClassInfo] = field(default_factory=dict)  # by qualified name
    class_of_node: dict[ast.ClassDef, ClassInfo] = field(default_factory=dict)
    method_owner: dict[ast.AST, ClassInfo] = field(default_factory=dict)
    unbound_methods: set[ast.AST] = field(default_factory=set)  # static and class methods: no ``self``
    class_methods: set[ast.AST] = field(default_factory=set)
    #: Names used as class decorators, or called to make one: ``@register`` or ``@register(...)`` above a ``class``
    class_decorators: set[str] = field(default_factory=set)
    module_candidates: set[str] = field(default_factory=set)
    class_candidates: dict[str, set[str]] = field(default_factory=dict)
    instance_candidates: dict[str, set[str]] = field(default_factory=dict)
    singletons: dict[str, str] = field(default_factory=dict)  # module-level instance name -> class name
    #: Module-level instances of classes imported by name (another project module's, when the index says
    #: so): name -> (the class as qualified here, the call that built it)
    imported_singletons: dict[str, tuple[str, ast.expr]] = field(default_factory=dict)
    cached_functions: list[CachedFunction] = field(default_factory=list)
    functions: dict[str, FunctionNode] = field(default_factory=dict)  # module-level ``def``s
    #: Filled here, defined elsewhere: by the name here (``registry``, or ``Other._params`` for a class
    #: attribute bound to another module's container)
    imported_containers: dict[str, ImportedContainer] = field(default_factory=dict)
    container_aliases: set[str] = field(default_factory=set)  # those of them bound here by an alias
    kept_arguments: list[KeptArgument] = field(default_factory=list)
    #: Names some function declares ``global``: a module-level binding of one of them may be replaced later,
    #: so what it held at import is not the module's for good
    global_names: set[str] = field(default_factory=set)
    #: Module-level names and class attributes that functions set (``global X; X = ...``, ``cls.X = ...``)
    slot_stores: list[SlotStore] = field(default_factory=list)
    #: Has an ``if __name__ == "__main__":`` block, or prints (parses its arguments) at import: run as a
    #: program, its globals are that run's own state
    runs_as_script: bool = False
    imported: Imported = NOWHERE

    @property
    def is_a_program(self) -> bool:
        """Run as a program, and not library code its package uses: its globals are that run's own state, gone
        when it exits. A module its package imports is imported whatever its ``__main__`` block does (a demo,
        a command), so its globals live as long as the process that imports it."""
        return self.runs_as_script and not self.imported.used_by_its_package()

    @property
    def ends_its_run(self) -> bool:
        """A program whose run ends: what its functions put in its globals goes when it exits. Not one that
        serves (it imports a web or UI framework: Gradio, Streamlit, Flask, FastAPI): its handlers run until
        it is stopped, and a model one loads into a global on first use stays for the server's life."""
        return self.is_a_program and not self.names.spellings(_SERVING_FRAMEWORKS)

    @property
    def has_candidates(self) -> bool:
        return bool(
            self.module_candidates or self.class_candidates or self.instance_candidates or self.cached_functions
            or self.kept_arguments
        )

    def holders(self, owner: str) -> list[str]:
        """The long-lived instances (module-level, or held by a class attribute) whose class is ``owner``
        or derives from it: their instance state lives as long as they do."""
        return [
            name
            for name, class_name in self.singletons.items()
            if owner in {ancestor.name for ancestor in self.lineage(self.classes[class_name])}
        ]

    def lineage(self, info: ClassInfo) -> Iterator[ClassInfo]:
        """The class and its local bases, nearest first (each once)."""
        seen: set[str] = set()
        pending = [info]
        while pending:
            current = pending.pop(0)
            if current.name not in seen:
                seen.add(current.name)
                yield current
                pending.extend(self.classes[base] for base in current.local_bases if base in self.classes)


def survey_module(module: ast.Module, vocabulary: Vocabulary, imported: Imported = NOWHERE) -> Survey:
    survey = Survey(imported=imported)
    pending = _Pending()
    _visit(survey, pending, module.body, owner=None, function=None, prefix="")
    _settle_class_kinds(survey, vocabulary)
    _settle_candidates(survey, pending, vocabulary)
    return survey


@dataclass
class _Pending:
    """What can only be judged once every statement was seen (classes may be defined after use)."""

    decorated: list[tuple[FunctionNode, Optional[ClassInfo]]] = field(default_factory=list)
    #: ``_INSTANCE = Registry()``, or ``censor = Censor().censor`` (the bound method keeps its instance):
    #: (name, callee, the method bound or "")
    instances: list[tuple[str, ast.expr, str]] = field(default_factory=list)
    #: ``cls._instance = cls()`` in a classmethod, ``Registry._instance = Registry()``: (target, callee, the class
    #: ``cls`` is, in a classmethod)
    class_instances: list[tuple[ast.Attribute, ast.expr, Optional[ClassInfo]]] = field(default_factory=list)
    self_containers: list[tuple[ClassInfo, str, ContainerType]] = field(default_factory=list)
    class_placeholders: list[tuple[str, str]] = field(default_factory=list)  # (class, attribute) bound to None
    attributes_given_containers: set[str] = field(default_factory=set)  # ``x.attr = {}`` anywhere
    class_body_instances: list[tuple[ClassInfo, str, ast.expr]] = field(default_factory=list)
    filled_names: set[str] = field(default_factory=set)  # ``X[k] = v``, ``X.append(v)``: maybe an imported container
    filled_attributes: set[str] = field(default_factory=set)  # ``cls.X[k] = v``, ``Other.X.append(v)``
    #: ``X = other.registry`` at module level, ``_params = Owner._params`` in a class body: (class or "",
    #: name, value), maybe another module's container under a second name
    aliases: list[tuple[str, str, ast.expr]] = field(default_factory=list)
    #: Calls made as statements inside functions, with the function: maybe to another module's keeper
    calls: list[tuple[ast.Call, FunctionNode]] = field(default_factory=list)
    #: What ``for p in model.parameters():`` (or ``modules()``, ...) binds, per function
    model_loop_names: dict[FunctionNode, set[str]] = field(default_factory=dict)
    #: ``Owner.X = value`` (or ``del Owner.X``) in a function, ``Owner`` any name: a slot if it names a class here
    named_attribute_stores: list[tuple[ast.Attribute, Optional[ast.expr], FunctionNode]] = field(default_factory=list)
    #: ``X = something(f)`` at module level, ``f`` a name: maybe a cache made by a call, once imports are known
    applied_to_names: list[tuple[str, ast.Call]] = field(default_factory=list)


def _visit(
    survey: Survey,
    pending: _Pending,
    body: list[ast.stmt],
    owner: Optional[ClassInfo],
    function: Optional[FunctionNode],
    prefix: str,
    declared_global: Optional[set[str]] = None,
) -> None:
    """Statements of one scope; ``prefix`` qualifies the classes defined in it (``A.``, ``f.<locals>.``);
    ``declared_global`` holds the names the enclosing function declares global."""
    at_module = owner is None and function is None
    in_function = function is not None
    for statement in body:
        kind = type(statement)  # one dispatch on the exact type: this loop sees every statement of the file
        if kind is ast.Assign or kind is ast.AnnAssign or kind is ast.AugAssign:
            targets = statement.targets if kind is ast.Assign else [statement.target]  # type: ignore[union-attr]
            if in_function and not declared_global and (
                type(targets[0]) is ast.Name if len(targets) == 1 else all(type(target) is ast.Name for target in targets)
            ):
                continue  # a plain local inside a function: nothing the survey tracks (the common case)
            _visit_assignment(survey, pending, statement, targets, owner, function, at_module, declared_global or set())  # type: ignore[arg-type]
            for target in targets:
                if type(target) is ast.Subscript:
                    _filled(pending, target.value)
        elif kind is ast.Expr:
            call = statement.value  # type: ignore[attr-defined]
            if type(call) is not ast.Call:
                continue
            method = call.func
            if at_module and _is_program_output(method):
                survey.runs_as_script = True
            if type(method) is ast.Attribute and method.attr in _FILLING_METHODS and type(method.value) in _RECEIVERS:
                _filled(pending, method.value)
            elif in_function and call.args:
                pending.calls.append((call, function))  # type: ignore[arg-type]
                spelled = _attribute_set(call, survey)
                if spelled is not None:
                    _slot_store(survey, pending, spelled, call.args[2], owner, function, declared_global or set())  # type: ignore[arg-type]
        elif kind is ast.Import or kind is ast.ImportFrom:
            survey.names.add_import(statement, module_level=at_module)  # type: ignore[arg-type]
            if kind is ast.ImportFrom and at_module and any(a.name == "*" for a in statement.names):  # type: ignore[attr-defined]
                star = "." * statement.level + (statement.module or "")  # type: ignore[attr-defined]
                survey.names.add_star_import(functools.partial(survey.imported.star_names, star))
        elif kind is ast.ClassDef:
            info = ClassInfo(statement, prefix + statement.name)  # type: ignore[arg-type,attr-defined]
            survey.classes.setdefault(info.qualname, info)
            survey.class_of_node[statement] = info  # type: ignore[index]
            for decorator in statement.decorator_list:  # type: ignore[attr-defined]
                named = decorator.func if type(decorator) is ast.Call else decorator
                if type(named) is ast.Name:
                    survey.class_decorators.add(named.id)  # type: ignore[attr-defined]
            if at_module:
                survey.names.add_module_name(statement.name)  # type: ignore[attr-defined]
            _visit(survey, pending, statement.body, owner=info, function=None, prefix=f"{info.qualname}.")
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            _visit_function(survey, pending, statement, owner if function is None else None, at_module, prefix)  # type: ignore[arg-type]
        elif kind is ast.Delete and in_function:
            for target in statement.targets:  # type: ignore[attr-defined]
                _slot_store(survey, pending, target, None, owner, function, declared_global or set())  # type: ignore[arg-type]
        elif kind is ast.Global and declared_global is not None:
            declared_global.update(statement.names)  # type: ignore[attr-defined]
            survey.global_names.update(statement.names)  # type: ignore[attr-defined]
        elif kind in COMPOUND:
            if in_function and (kind is ast.For or kind is ast.AsyncFor) and type(statement.iter) is ast.Call:  # type: ignore[attr-defined]
                method = statement.iter.func  # type: ignore[attr-defined]
                if type(method) is ast.Attribute and method.attr in _MODEL_ITERATORS:
                    names = {name.id for name in walk(statement.target) if type(name) is ast.Name}  # type: ignore[attr-defined]
                    pending.model_loop_names.setdefault(function, set()).update(names)  # type: ignore[arg-type]
            if at_module and is_main_guard(statement):
                survey.runs_as_script = True
                continue  # ``if __name__ == "__main__":`` binds a script's locals, not module state
            for block in nested_blocks(statement):
                _visit(survey, pending, block, owner, function, prefix, declared_global)


_RECEIVERS = (ast.Name, ast.Attribute)


def _filled(pending: _Pending, receiver: ast.expr) -> None:
    """``X[k] = v`` or ``X.append(v)`` (``cls.X``, ``Other.X``): ``X`` may be another module's container."""
    if type(receiver) is ast.Name:
        pending.filled_names.add(receiver.id)  # type: ignore[attr-defined]
    elif type(receiver) is ast.Attribute:
        pending.filled_attributes.add(receiver.attr)  # type: ignore[attr-defined]


#: Methods Python makes class or static methods without a decorator: their first parameter is the class.
_IMPLICIT_CLASS_METHODS = {"__init_subclass__": "classmethod", "__class_getitem__": "classmethod", "__new__": "staticmethod"}


def _visit_function(
    survey: Survey, pending: _Pending, function: FunctionNode, owner: Optional[ClassInfo], at_module: bool, prefix: str
) -> None:
    if at_module:
        survey.names.add_module_name(function.name)
        survey.functions.setdefault(function.name, function)
    if owner is not None:
        survey.method_owner[function] = owner
        owner.methods.setdefault(function.name, function)
        decorators = {_decorator_name(decorator) for decorator in function.decorator_list}
        implicit = _IMPLICIT_CLASS_METHODS.get(function.name)  # ``__init_subclass__(cls)``: no decorator, no instance
        if decorators & {"staticmethod", "classmethod"} or implicit or _takes_a_plain_value_first(function, survey):
            survey.unbound_methods.add(function)
        if "classmethod" in decorators or implicit == "classmethod":
            survey.class_methods.add(function)
    if function.decorator_list:
        pending.decorated.append((function, owner))
    inner = f"{prefix}{function.name}.<locals>."
    _visit(survey, pending, function.body, owner=owner, function=function, prefix=inner, declared_global=set())


#: What a first parameter annotated as one of these holds: a plain value, never the instance
_PLAIN_VALUE_TYPES = frozenset(f"builtins.{name}" for name in ("int", "float", "str", "bool", "bytes", "complex"))


def _takes_a_plain_value_first(function: FunctionNode, survey: Survey) -> bool:
    """``def set_size(size: int)`` in a class body, called as ``Model.set_size(2)``: a function kept in the
    class without ``@staticmethod``. Its first parameter says it is a plain value, not the instance, so what
    it stores is that value, never the instance."""
    parameters = function_parameters(function)
    annotation = parameters[0].annotation if parameters else None
    return annotation is not None and survey.names.qualify(annotation) in _PLAIN_VALUE_TYPES


def _visit_assignment(
    survey: Survey,
    pending: _Pending,
    statement: ast.Assign | ast.AnnAssign | ast.AugAssign,
    targets: list[ast.expr],
    owner: Optional[ClassInfo],
    function: Optional[FunctionNode],
    at_module: bool,
    declared_global: set[str],
) -> None:
    whole = None if isinstance(statement, ast.AugAssign) else statement.value
    for target, value in _paired(targets, whole):
        constructor = classify(value, survey.names)
        if isinstance(statement, ast.AnnAssign) and constructor is None and value is None:
            constructor = classify(ast.Constant(None), survey.names)  # ``X: Dict[...]`` alone: bound later
        container = constructor is not None and constructor.type is not ContainerType.PLACEHOLDER
        if isinstance(target, ast.Name) and _is_dunder(target.id):
            if at_module:
                survey.names.add_module_name(target.id)
            continue  # ``__all__``, ``__slots__``: Python's protocol names hold strings, never candidates
        if isinstance(target, ast.Name):
            if function is None and len(targets) == 1 and isinstance(value, (ast.Name, ast.Attribute)):
                pending.aliases.append((owner.name if owner is not None else "", target.id, value))
            if at_module:
                survey.names.add_module_name(target.id)
                if container:
                    survey.module_candidates.add(target.id)
                elif isinstance(value, ast.Call) and len(targets) == 1:
                    pending.instances.append((target.id, value.func, ""))
                    if len(value.args) == 1 and not value.keywords and isinstance(value.args[0], ast.Name):
                        pending.applied_to_names.append((target.id, value))
                elif isinstance(value, ast.Attribute) and isinstance(value.value, ast.Call) and len(targets) == 1:
                    pending.instances.append((target.id, value.value.func, value.attr))
            elif owner is not None and function is None and container:
                survey.class_candidates.setdefault(owner.name, set()).add(target.id)
            elif owner is not None and function is None and constructor is not None:
                pending.class_placeholders.append((owner.name, target.id))
            elif owner is not None and function is None and isinstance(value, ast.Call) and len(targets) == 1:
                pending.class_body_instances.append((owner, target.id, value.func))  # ``state = State()`` in a class
            elif container and target.id in declared_global:
                survey.module_candidates.add(target.id)  # ``global X; X = {}``: even without a module binding
            elif target.id in declared_global and isinstance(value, ast.Call) and len(targets) == 1:
                pending.instances.append((target.id, value.func, ""))  # ``global _INSTANCE; _INSTANCE = Registry()``
        elif isinstance(target, ast.Attribute) and container:
            pending.attributes_given_containers.add(target.attr)
        elif isinstance(target, ast.Attribute) and isinstance(value, ast.Call) and len(targets) == 1:
            cls = owner if function is not None and is_cls(target.value, function, survey) else None
            pending.class_instances.append((target, value.func, cls))
        if function is not None and value is not None:  # ``a, b = f()``: neither a fill shown nor a release
            _slot_store(survey, pending, target, value, owner, function, declared_global)
        if _is_self_attribute(target, function, owner, survey) and owner is not None:
            owner.self_attributes.add(target.attr)  # type: ignore[union-attr]
            if constructor is not None and constructor.type is not ContainerType.PLACEHOLDER:
                pending.self_containers.append((owner, target.attr, constructor.type))  # type: ignore[union-attr]


def _slot_store(
    survey: Survey, pending: _Pending, target: ast.expr, value: Optional[ast.expr], owner: Optional[ClassInfo],
    function: FunctionNode, declared_global: set[str],
) -> None:
    """A store into (or ``del`` of) a module-level name the function declares ``global``, or an attribute of
    ``cls`` in a classmethod or of a name that may be a class here (settled once every class is seen)."""
    if type(target) is ast.Name:
        if target.id in declared_global:
            survey.slot_stores.append(SlotStore(target.id, target, value, function))
    elif type(target) is ast.Attribute and type(target.value) is ast.Name:
        if owner is not None and is_cls(target.value, function, survey):
            survey.slot_stores.append(SlotStore(f"{owner.name}.{target.attr}", target, value, function))
        elif not _is_self_attribute(target, function, owner, survey) and (not isinstance(value, PLAIN_VALUES) or SlotStore.is_none(value)):
            pending.named_attribute_stores.append((target, value, function))  # ``None`` is kept: it sets a slot back


def _attribute_set(call: ast.Call, survey: Survey) -> Optional[ast.Attribute]:
    """``setattr(Owner, "output", value)`` with the name spelled out, as the store ``Owner.output = value``
    it is (the attribute node stands where the call does)."""
    if type(call.func) is not ast.Name or call.func.id != "setattr" or len(call.args) != 3 or call.keywords:  # type: ignore[attr-defined]
        return None
    owner, name = call.args[0], call.args[1]
    if type(owner) is not ast.Name or type(name) is not ast.Constant or not isinstance(name.value, str) or survey.names.qualify(call.func) != "builtins.setattr":  # type: ignore[attr-defined]
        return None
    return ast.copy_location(ast.Attribute(value=owner, attr=name.value, ctx=ast.Store()), call)  # type: ignore[attr-defined]


#: Values no framework object can be: the rules skip stores of them before building any evidence
PLAIN_VALUES = (ast.Constant, ast.JoinedStr, ast.Compare, ast.BoolOp)


def _is_self_attribute(target: ast.AST, function: Optional[FunctionNode], owner: Optional[ClassInfo], survey: Survey) -> bool:
    # most targets are plain names: answered before the function's parameters are looked at
    if type(target) is not ast.Attribute or type(target.value) is not ast.Name:  # type: ignore[attr-defined]
        return False
    if function is None or owner is None or function in survey.unbound_methods:
        return False
    parameters = function_parameters(function)
    return bool(parameters) and target.value.id == parameters[0].arg  # type: ignore[attr-defined]


def _bound_in(function: FunctionNode, name: str) -> bool:
    """Whether ``name`` is the function's own (a parameter, a loop variable, an assigned local): then
    ``name.X = ...`` stores into what it holds there (``for WN in model.WN: WN.layers = ...``), not into
    the module's class of that name."""
    if any(parameter.arg == name for parameter in function_parameters(function)):
        return True
    return any(type(node) is ast.Name and node.id == name and type(node.ctx) is ast.Store for node in walk(function))  # type: ignore[attr-defined]


def _is_program_output(function: ast.expr) -> bool:
    """``print(...)`` or ``parser.parse_args()`` as a statement of the module itself: a program that does its
    work at import (an example or an experiment without a ``__main__`` guard), not a library."""
    if type(function) is ast.Name:
        return function.id == "print"  # type: ignore[attr-defined]
    return type(function) is ast.Attribute and function.attr == "parse_args"  # type: ignore[attr-defined]


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _paired(targets: list[ast.expr], value: Optional[ast.expr]) -> Iterator[tuple[ast.expr, Optional[ast.expr]]]:
    """Each name or attribute bound, with the value it gets where the statement spells it out:
    ``self.targs, self.preds = [], []`` binds two lists; ``a, b = pair`` binds two unknowns."""
    for target in targets:
        if not isinstance(target, (ast.Tuple, ast.List)):
            yield target, value
        elif isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) and not any(
            isinstance(part, ast.Starred) for part in (*target.elts, *value.elts)
        ):
            for inner, element in zip(target.elts, value.elts):
                yield from _paired([inner], element)
        else:
            yield from ((inner, None) for inner, _ in _paired(target.elts, None))


def _decorator_name(decorator: ast.expr) -> str:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")


def _settle_class_kinds(survey: Survey, vocabulary: Vocabulary) -> None:
    """Record each class's local bases; its framework lineage is worked out when first asked."""
    # Through a weak proxy: a survey whose classes held it strongly would be a reference cycle, and the
    # module's whole tree would then outlive its check until the cyclic collector ran (over torch, that
    # collector's work cost a third as much as parsing).
    lineage_of = functools.partial(_lineage_of, weakref.proxy(survey), vocabulary)
    for info in survey.classes.values():
        info.lineage_of = lineage_of
        bases = [base_class(base) for base in info.node.bases]
        info.local_bases.extend(base.id for base in bases if isinstance(base, ast.Name) and base.id in survey.classes)


def _lineage_of(survey: Survey, vocabulary: Vocabulary, info: ClassInfo) -> FrameworkLineage:
    """A framework base named by the class itself (through its imports, or another project module's class)
    wins; else the first local base that has one passes it down, in any definition order."""
    for base in map(base_class, info.node.bases):
        if isinstance(base, ast.Name) and base.id in survey.classes:
            continue
        qualified = survey.names.qualify(base)
        kind = vocabulary.kind_of_type(qualified) if qualified else None
        if kind is not None:
            return FrameworkLineage(kind, ast.unparse(base))
        if qualified is not None and (imported := survey.imported.class_kind(qualified)) is not None:
            return FrameworkLineage(imported.kind, ast.unparse(base), imported.why)
    for base in info.local_bases:
        inherited = survey.classes[base].lineage
        if inherited.kind is not None:
            return inherited
    return NOT_FRAMEWORK


def _settle_aliases(survey: Survey, pending: _Pending) -> None:
    """``Other._params = Owner._params`` (``Owner`` imported from another project module): this name is
    that container, and what is put in it here is judged here, as a fill of an imported container. Only
    names this module fills are asked about."""
    for owner, name, value in pending.aliases:
        if name not in (pending.filled_attributes if owner else pending.filled_names):
            continue
        key = f"{owner}.{name}" if owner else name
        if not survey.names.is_imported(root_name(value)) or key in survey.imported_containers:
            continue
        if (owner and name in survey.class_candidates.get(owner, ())) or (not owner and name in survey.module_candidates):
            continue  # also bound to a container of its own
        qualified = survey.names.qualify(value)
        container = survey.imported.container(qualified) if qualified else None
        if container is not None:
            survey.imported_containers[key] = container
            survey.container_aliases.add(key)
            if owner:
                survey.class_candidates.setdefault(owner, set()).add(name)
            else:
                survey.module_candidates.add(name)


#: Methods whose results are a model's own modules, parameters or buffers: what a loop over them binds
#: is worth asking another module about.
_MODEL_ITERATORS = frozenset(
    "parameters named_parameters modules named_modules children named_children buffers named_buffers".split()
)


def _settle_kept_arguments(survey: Survey, pending: _Pending, vocabulary: Vocabulary) -> None:
    """Calls to another project module's function that keeps an argument (``Store.put(self)``). Only a
    call passing what is plainly a framework object asks the index (each question may cost a summary):
    ``self`` of a framework class, a parameter annotated with a framework type, or what a loop over a
    model's parameters or modules binds. The evidence is then judged as for any fill."""
    if not survey.imported.knows_a_project:
        return
    for call, function in pending.calls:
        callee, accessor = call.func, ""
        receiver = callee.value if isinstance(callee, ast.Attribute) else None
        local = isinstance(receiver, ast.Name) and not survey.names.is_imported(receiver.id) and not any(
            parameter.arg == receiver.id for parameter in function_parameters(function)  # ``self``: never a singleton's alias
        )
        if isinstance(receiver, ast.Call) and not receiver.args:
            callee, accessor = receiver.func, f"().{call.func.attr}"  # type: ignore[attr-defined]  # ``Manager.get_instance().register``
        if not local and not survey.names.is_imported(root_name(callee)):
            continue
        loop_bound = pending.model_loop_names.get(function, set())
        plain = [a for a in call.args if _plainly_framework(a, function, loop_bound, survey, vocabulary)]
        if not plain:
            continue
        if local:  # ``manager = Manager.get_instance()`` first, then ``manager.register(...)``
            bound = _accessor_bound(function, receiver.id)  # type: ignore[union-attr]
            if bound is None or not survey.names.is_imported(root_name(bound.func)):
                continue
            callee, accessor = bound.func, f"().{call.func.attr}"  # type: ignore[attr-defined]
        qualified = survey.names.qualify(callee)
        keeper = survey.imported.keeper(qualified + accessor) if qualified is not None else None
        if keeper is not None and keeper.position < 0:
            survey.kept_arguments.append(KeptArgument(call, plain[0], keeper))  # a cache keeps every argument
        elif keeper is not None and keeper.position < len(call.args) and not isinstance(call.args[keeper.position], ast.Starred):
            survey.kept_arguments.append(KeptArgument(call, call.args[keeper.position], keeper))


def _accessor_bound(function: FunctionNode, name: str) -> Optional[ast.Call]:
    """The call a local is bound to, once and only once in the function, when it takes no arguments and is
    made on something: ``manager = GlobalOptimManager.get_instance()``, then ``manager.register(module)``
    reaches the singleton as the spelled-out ``GlobalOptimManager.get_instance().register(module)`` does."""
    nodes = list(walk(function))
    stores = [node for node in nodes if type(node) is ast.Name and node.id == name and type(node.ctx) is not ast.Load]  # type: ignore[attr-defined]
    if len(stores) != 1:
        return None
    value = next((node.value for node in nodes if type(node) is ast.Assign and node.targets == stores), None)  # type: ignore[attr-defined]
    return value if type(value) is ast.Call and not value.args and type(value.func) is ast.Attribute else None  # type: ignore[attr-defined]


def _plainly_framework(
    argument: ast.expr, function: FunctionNode, loop_bound: set[str], survey: Survey, vocabulary: Vocabulary
) -> bool:
    if not isinstance(argument, ast.Name):
        return False
    parameters = function_parameters(function)
    owner = survey.method_owner.get(function)
    if parameters and argument.id == parameters[0].arg and owner is not None and function not in survey.unbound_methods:
        return owner.kind is not None  # ``self`` of a module class
    for parameter in parameters:
        if parameter.arg == argument.id and parameter.annotation is not None:
            qualified = survey.names.qualify(parameter.annotation)
            return qualified is not None and vocabulary.kind_of_type(qualified) is not None
    return argument.id in loop_bound


def is_cls(expr: ast.expr, function: FunctionNode, survey: Survey) -> bool:
    """Whether ``expr`` is ``cls`` in the class method ``function``: the class it is called on."""
    parameters = function_parameters(function)
    return function in survey.class_methods and bool(parameters) and isinstance(expr, ast.Name) and expr.id == parameters[0].arg


def _module_class(survey: Survey, expr: ast.expr) -> Optional[ClassInfo]:
    """The module-level class ``expr`` names directly."""
    if isinstance(expr, ast.Name) and survey.names.defines(expr.id):
        return survey.classes.get(expr.id)
    return None


def _imported_name(survey: Survey, expr: ast.expr) -> bool:
    """Whether ``expr`` is a name, or an attribute of one, that an explicit import binds here."""
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return isinstance(expr, ast.Name) and survey.names.is_imported(expr.id)


def _class_named(survey: Survey, expr: ast.expr) -> Optional[str]:
    """The class ``expr`` names directly, as a slot's owner is spelled: a class of this module (its
    qualified name), or one another module of the project defines (``SparseHelper._cur_active = mask``
    with ``from .sparse import SparseHelper``), as imported here."""
    named = _module_class(survey, expr)
    if named is not None:
        return named.name
    qualified = survey.names.qualify(expr) if isinstance(expr, ast.Name) else None
    return expr.id if qualified is not None and survey.imported.is_class(qualified) else None  # type: ignore[attr-defined]


def _instance_named(survey: Survey, expr: ast.expr) -> Optional[tuple[str, str]]:
    """The class of the module-level instance ``expr`` names, kept for the process, and where another module
    binds it: one this module binds (``_state = State()``: no place to say), or one another project module
    binds, as imported here (``from ._amp_state import _amp_state``: the class qualified)."""
    if not isinstance(expr, ast.Name):
        return None
    if expr.id in survey.singletons:
        return survey.singletons[expr.id], ""
    qualified = survey.names.qualify(expr) if survey.names.is_imported(expr.id) else None
    found = survey.imported.module_level_instance(qualified) if qualified is not None else None
    return (found[0], f"`{found[1]}` line {found[2]}") if found is not None else None


def instance_keeping_metaclass(survey: Survey, info: ClassInfo) -> Optional[str]:
    """The metaclass, of the class or of a local base, whose ``__call__`` keeps the one instance it creates
    (``class Manager(metaclass=Singleton)``, ``Singleton`` defined here or imported from another project
    module): that instance and what it holds live as long as the metaclass's table, the whole process. A
    base from another module that names such a metaclass is not followed: asking the index about every
    imported base of every class with containers cost 2% of a check over torch, and the one such class the
    sweeps recorded (auto-round's contexts) keeps its model in a plain attribute, which no rule reports."""
    for ancestor in survey.lineage(info):
        for keyword in ancestor.node.keywords:
            if keyword.arg != "metaclass":
                continue
            local = survey.classes.get(keyword.value.id) if isinstance(keyword.value, ast.Name) else None
            qualified = survey.names.qualify(keyword.value)
            if local is not None and keeps_created_instances(local.node):
                return local.name
            if local is None and qualified is not None and survey.imported.keeps_created_instances(qualified):
                return qualified
    return None


def _let_go_by_the_class(survey: Survey, holder: ClassInfo, attribute: str) -> bool:
    """Whether a method of ``holder`` or of its bases deletes the class attribute or sets it back to None
    (``del cls.tables`` in a test's ``tearDownClass``, beside ``cls.tables = Tables()`` in ``setUpClass``):
    the instance lives as long as the class's own lifecycle lets it, not for the process, as WG011 and WG012
    leave alone what is set back."""
    lineage = list(survey.lineage(holder))
    names = {cls.node.name for cls in lineage}
    for method in (method for cls in lineage for method in cls.methods.values()):
        parameters = function_parameters(method)
        own = {parameters[0].arg} if parameters and method in survey.class_methods else set()  # ``self.X = None`` shadows
        if attribute in attributes_set_back(method.body, lambda target: isinstance(target, ast.Name) and target.id in names | own):
            return True
    return False


def _settle_candidates(survey: Survey, pending: _Pending, vocabulary: Vocabulary) -> None:
    for class_name, attribute in pending.class_placeholders:  # ``X = None`` in a class, ``cls.X = {}`` later
        if attribute in pending.attributes_given_containers:
            survey.class_candidates.setdefault(class_name, set()).add(attribute)
    for name, callee, method in pending.instances:
        # A module-level model owns its tensors by design: only instances of other classes are state holders.
        if isinstance(callee, ast.Name) and callee.id in survey.classes and survey.classes[callee.id].kind is None:
            if not method or any(method in cls.methods for cls in survey.lineage(survey.classes[callee.id])):
                survey.singletons[name] = callee.id
        elif _imported_name(survey, callee) and (qualified := survey.names.qualify(callee)) is not None:
            survey.imported_singletons[name] = (qualified, callee)
    for name in pending.filled_names - survey.module_candidates:
        qualified = survey.names.qualify(ast.Name(name)) if survey.names.imported_from(name) else None
        container = survey.imported.container(qualified) if qualified else None
        if container is not None:
            survey.imported_containers[name] = container
            survey.module_candidates.add(name)  # its uses here are judged as a global's, reported here
    _settle_aliases(survey, pending)
    _settle_kept_arguments(survey, pending, vocabulary)
    for target, callee, cls in pending.class_instances:
        if isinstance(callee, ast.Attribute) and callee.attr == "__new__":
            callee = callee.value  # ``cls._instance = cls.__new__(cls)``
        holder = cls or _module_class(survey, target.value)
        created = cls if cls is not None and ast.dump(callee) == ast.dump(target.value) else _module_class(survey, callee)
        if holder is not None and created is not None and created.kind is None and not _let_go_by_the_class(survey, holder, target.attr):
            survey.singletons[f"{holder.name}.{target.attr}"] = created.name  # lives as long as the class
    for target, value, function in pending.named_attribute_stores:
        owner = _class_named(survey, target.value)
        instance = _instance_named(survey, target.value) if owner is None else None
        if (owner or instance) and not _bound_in(function, target.value.id):  # type: ignore[attr-defined]
            slot = f"{owner}.{target.attr}" if owner else f"{target.value.id}.{target.attr}"  # type: ignore[attr-defined]
            of, defined = instance or ("", "")
            survey.slot_stores.append(SlotStore(slot, target, value, function, instance_of=of, instance_defined=defined))
        elif target.value.id in survey.functions and not _bound_in(function, target.value.id):  # type: ignore[attr-defined]
            slot = f"{target.value.id}.{target.attr}"  # type: ignore[attr-defined]
            survey.slot_stores.append(SlotStore(slot, target, value, function, of_function=True))
    for holder, attribute, callee in pending.class_body_instances:
        created = _module_class(survey, callee)
        if created is not None and created.kind is None and not _let_go_by_the_class(survey, holder, attribute):
            survey.singletons[f"{holder.name}.{attribute}"] = created.name
    for owner in {owner.name: owner for owner, _, _ in pending.self_containers}.values():
        metaclass = instance_keeping_metaclass(survey, owner)
        if metaclass is not None:
            survey.singletons[f"{owner.name}()"] = owner.name  # ``Manager()`` is the one instance, wherever it is called
    singleton_lineage = {
        ancestor.name for class_name in survey.singletons.values() for ancestor in survey.lineage(survey.classes[class_name])
    }
    for owner, attribute, container in pending.self_containers:
        if owner.name in singleton_lineage or container in (ContainerType.WEAK_MAP, ContainerType.WEAK_SET):
            survey.instance_candidates.setdefault(owner.name, set()).add(attribute)
    wrappers: dict[str, bool] = {}  # a local decorator is read once, however many functions it decorates
    for function, owner in pending.decorated:
        for decorator in function.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            qualified = survey.names.qualify(target)
            if qualified in CACHE_DECORATORS:
                survey.cached_functions.append(CachedFunction(function, decorator, owner))
            elif qualified in RESULT_CACHES:
                survey.cached_functions.append(CachedFunction(function, decorator, owner, keeps_arguments=False))
            elif isinstance(target, ast.Name) and target.id in survey.functions and survey.names.defines(target.id):
                if target.id not in wrappers:
                    wrappers[target.id] = wraps_a_cache(survey.functions[target.id], survey.names.qualify)
                if wrappers[target.id]:
                    survey.cached_functions.append(CachedFunction(function, decorator, owner, wrapper=target.id))
            elif qualified is not None and survey.imported.is_cache_decorator(qualified):
                survey.cached_functions.append(CachedFunction(function, decorator, owner, wrapper=qualified))
    for name, call in pending.applied_to_names:  # ``X_cached = functools.lru_cache(maxsize=256)(X)``
        target = call.func.func if isinstance(call.func, ast.Call) else call.func
        function = survey.functions.get(call.args[0].id)  # type: ignore[attr-defined]
        if function is not None and survey.names.qualify(target) in CACHE_DECORATORS:
            survey.cached_functions.append(CachedFunction(function, call.func, None, bound_to=name))
