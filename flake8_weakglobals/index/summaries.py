"""Module summaries: what one module defines that other modules of its project may ask about, read with
``ast`` from module-level statements only (and the bodies of functions that may wrap a cache or keep an
argument). The project index (``project.py``) builds, caches and follows them; nothing here knows of rules.

A summary holds the classes and their bases, the functions that wrap ``functools.lru_cache``, what
functions are annotated to return, the module-level and class-level containers, the functions that keep
one of their arguments in such a container, the names a star import brings, and what the module imports.
Every name in a summary is absolute (``pkg.base.Rotary``).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Callable, Iterator, Optional, Union

from ..syntax.container_expressions import ContainerType, classify
from ..syntax.mentions import Mentions
from ..syntax.qualified_names import Names, base_class, is_record
from ..syntax.scopes import attributes_set_back, every_statement, function_parameters, module_level, own_returns, walk
from ..syntax.type_guards import guarded_attributes, guarded_types

CACHE_FUNCTIONS = frozenset({"functools.lru_cache", "functools.cache"})
_CACHE_FUNCTION_NAMES = frozenset(name.rpartition(".")[2] for name in CACHE_FUNCTIONS)  # a wrapper calls one
_EMPTYING = frozenset({"clear", "pop", "popitem", "remove", "discard"})


@dataclass
class ModuleSummary:
    name: str
    aliases: dict[str, str] = field(default_factory=dict)  # module-level imports: local name -> absolute target
    classes: dict[str, list[str]] = field(default_factory=dict)  # class -> its bases, absolute
    #: classes with a base no name gives (``six.with_metaclass(Meta, Base)``): ``classes`` leaves it out, so
    #: their tree cannot be read to its end
    unnamed_bases: list[str] = field(default_factory=list)
    cache_wrappers: list[str] = field(default_factory=list)  # functions (or names) that wrap lru_cache
    returns: dict[str, str] = field(default_factory=dict)  # function -> the absolute type it is annotated to return
    #: function -> the absolute types of the fixed tuple it is annotated to return (``-> Tuple[Tensor, int]``),
    #: "" where an element is not a plain name
    returns_tuple: dict[str, list[str]] = field(default_factory=dict)
    #: Undecorated functions that build what they return, annotated or not, and classes' static and class
    #: methods that do (``Class.method``): function -> the absolute name called to build it, then the steps
    #: that compute the result from it (``built_and_returned``)
    builds: dict[str, list[str]] = field(default_factory=dict)
    #: Functions that store what they build into a container their caller hands them (``def cached(cache,
    #: w): ...; cache[key] = torch.arange(n)``): function -> [the container's position as callers pass it,
    #: then each derivation of what is stored, as ``builds`` spells one] (``filled_parameter``)
    fills: dict[str, list] = field(default_factory=dict)
    #: functions that return a local they treat as a model (``returned_model``): [local, method, line]
    returned_models: dict[str, list] = field(default_factory=dict)
    containers: dict[str, tuple[int, str]] = field(default_factory=dict)  # container -> (line, ContainerType value)
    class_containers: dict[str, tuple[int, str]] = field(default_factory=dict)  # ``Store._items`` -> (line, type)
    #: Functions that keep an argument in one of those containers: ``register`` or ``Store.put`` ->
    #: (the argument's position as callers pass it, the container, its line, its ContainerType value, "");
    #: or in their own cache, from a cache decorator and without annotations to judge it by where it is
    #: defined: (-1, every argument, the function, the decorator's line, "cache", the decorator as written)
    keepers: dict[str, tuple[int, str, int, str, str]] = field(default_factory=dict)
    #: What each class's ``__init__`` stores in its instances' attributes, as far as a name says: ``self.X =
    #: f(...)`` (the callee), ``self.X = param`` (the parameter's annotation), ``self.X: T = ...``: class ->
    #: [(attribute, every absolute name in that call or annotation, line)]; who asks decides what they are
    holdings: dict[str, list[tuple[str, list[str], int]]] = field(default_factory=dict)
    #: What each class's ``__init__`` stores straight from an unannotated parameter (``self.model = model``):
    #: class -> [(attribute, parameter, position as callers pass it, line)] (``parameters_kept``)
    kept_parameters: dict[str, list[tuple[str, str, int, int]]] = field(default_factory=dict)
    #: Classes that define ``__eq__`` or ``__hash__`` (or are dataclasses that generate them): their
    #: instances are told apart by value, not identity
    value_equality: list[str] = field(default_factory=list)
    exports: list[str] = field(default_factory=list)  # what ``from module import *`` binds
    #: ``exports`` is the module's ``__all__``; without one, a star import of it also binds what its own star
    #: imports bound (``from .all import *`` brings the ``torch`` that ``all`` star-imported)
    exports_listed: bool = False
    stars: list[str] = field(default_factory=list)  # modules it star-imports
    #: Names that stand for types: a type variable (its bound, or each constraint) or an alias of a class
    #: (``Norm = nn.LayerNorm``): name -> the absolute names it may be
    type_aliases: dict[str, list[str]] = field(default_factory=dict)
    #: Classes whose ``__call__`` keeps the instance it creates (``keeps_created_instances``): as a
    #: metaclass, every class made with it has one instance that lives as long as the metaclass's table
    instance_keepers: list[str] = field(default_factory=list)


def absolute(target: str, module: str, is_package: bool) -> str:
    """``.base.Rotary`` imported in ``pkg.models.llama`` is ``pkg.models.base.Rotary``."""
    level = len(target) - len(target.lstrip("."))
    if not level:
        return target
    parts = module.split(".") if is_package else module.split(".")[:-1]
    base = parts[: len(parts) - (level - 1)] if level - 1 <= len(parts) else []
    rest = target[level:]
    return ".".join([*base, rest] if rest else base)


def summarize(tree: ast.Module, module: str, is_package: bool, source: str) -> ModuleSummary:
    """The summary of one parsed module. Only module-level statements are read, ``if`` blocks included;
    functions are searched for ``lru_cache`` only where their text calls it."""
    mentions = Mentions(source)
    summary = ModuleSummary(module)
    statements = list(_module_statements(tree.body))
    names, qualify = _qualifier(statements, module, is_package)
    for statement in statements:
        if isinstance(statement, ast.ImportFrom) and any(alias.name == "*" for alias in statement.names):
            star = "." * statement.level + (statement.module or "")
            summary.stars.append(absolute(star, module, is_package))
    aliases = {
        alias.asname
        for statement in statements
        if isinstance(statement, ast.ImportFrom) and statement.module == "functools"
        for alias in statement.names
        if alias.asname
    }
    caching = sorted({*mentions.words(_CACHE_FUNCTION_NAMES | aliases, then=r"\s*\("), *mentions.lines(r"functools\s*\.\s*(?:lru_)?cache\b")})
    preparing = mentions.words(MODEL_WORDS, then=r"\s*\(")  # a model known by use
    checking = mentions.words(["isinstance"], then=r"\s*\(")  # a class whose type checks may say what it holds
    for statement in statements:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            for alias in statement.names:
                if alias.name != "*":
                    local_name = alias.asname or alias.name.partition(".")[0]
                    target = names.qualify(ast.Name(local_name))
                    if target:
                        summary.aliases[local_name] = absolute(target, module, is_package)
        elif isinstance(statement, ast.ClassDef):
            summary.classes[statement.name] = [q for base in statement.bases if (q := qualify(base_class(base)))]
            if len(summary.classes[statement.name]) < len(statement.bases):
                summary.unnamed_bases.append(statement.name)
            _summarize_class_containers(summary, statement, names)
            holdings = _holdings(statement, qualify, mentions.within(checking, statement))
            if holdings:
                summary.holdings[statement.name] = holdings
            kept = parameters_kept(statement)
            if kept:
                summary.kept_parameters[statement.name] = kept
            if defines_value_equality(statement, qualify):
                summary.value_equality.append(statement.name)
            if keeps_created_instances(statement):
                summary.instance_keepers.append(statement.name)
            summary.builds.update(_alternative_constructors(statement, module, qualify))
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if mentions.within(caching, statement) and wraps_a_cache(statement, qualify):
                summary.cache_wrappers.append(statement.name)
            returned = _returned_type(statement.returns, qualify)
            elements = _returned_tuple(statement.returns, qualify) if not returned else None
            if returned:
                summary.returns[statement.name] = returned
            elif elements:
                summary.returns_tuple[statement.name] = elements
            if statement.decorator_list or elements:
                continue
            if filled := filled_parameter(statement, qualify):
                summary.fills[statement.name] = filled
            # what it builds, annotated or not: ``-> Tensor`` says what it returns, not whose it is
            if built := built_and_returned(statement, qualify):
                summary.builds[statement.name] = built
            # also beside a build: what it calls may be untyped (a registry's ``build_segmentor(cfg)``)
            if not returned and mentions.within(preparing, statement) and (model := returned_model(statement)):
                summary.returned_models[statement.name] = list(model)  # type: ignore[assignment]
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    _summarize_binding(summary, target.id, statement, names, qualify)
    summary.exports, summary.exports_listed = _exports(tree, statements, summary)
    _summarize_keepers(summary, statements, names, qualify, mentions)
    return summary


def _qualifier(statements: list[ast.stmt], module: str, is_package: bool) -> tuple[Names, Callable[[ast.expr], Optional[str]]]:
    """The module-level imports among a module's ``statements``, and how a summary names what an expression
    refers to: absolutely, and a class or function the module defines as ``module.Name``."""
    names = Names()
    for statement in statements:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            names.add_import(statement, module_level=True)
    local = {
        statement.name
        for statement in statements
        if isinstance(statement, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
    }

    def qualify(expr: ast.expr) -> Optional[str]:
        root = expr
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in local and not isinstance(expr, ast.Attribute):
            return f"{module}.{root.id}"
        qualified = names.qualify(expr)
        return absolute(qualified, module, is_package) if qualified else None

    return names, qualify


def _summarize_class_containers(summary: ModuleSummary, cls: ast.ClassDef, names: Names) -> None:
    for statement in cls.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            constructor = classify(statement.value, names)
            if constructor is None or constructor.type is ContainerType.PLACEHOLDER:
                continue
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    summary.class_containers[f"{cls.name}.{target.id}"] = (statement.lineno, constructor.type.value)


def defines_value_equality(cls: ast.ClassDef, qualify) -> bool:  # type: ignore[no-untyped-def]
    """Whether the class itself makes its instances compare or hash by value: it defines ``__eq__`` or
    ``__hash__``, or it is a dataclass that generates them (``@dataclass`` compares by value unless
    ``eq=False``; a dict keyed by its instances then merges equal ones)."""
    if any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name in ("__eq__", "__hash__") for s in cls.body):
        return True
    for decorator in cls.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if (qualify(target) or "").rpartition(".")[2] != "dataclass":
            continue
        keywords = {k.arg: k.value for k in decorator.keywords} if isinstance(decorator, ast.Call) else {}
        eq = keywords.get("eq")
        if not (isinstance(eq, ast.Constant) and eq.value is False):
            return True
    return False


def _holdings(cls: ast.ClassDef, qualify, checks_types: bool) -> list[tuple[str, list[str], int]]:  # type: ignore[no-untyped-def]
    """What ``cls.__init__`` stores on ``self`` (``ModuleSummary.holdings``); for a record class (a
    ``@dataclass``, a ``NamedTuple``), the fields its generated constructor stores, as their annotations
    name them (``seqstart: torch.Tensor``), the way the evidence reads a record of the module itself; and,
    where its text ``checks_types`` (calls ``isinstance``), the attributes its type checks declare."""
    init = next((s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"), None)
    stored = [(attribute, names, line) for attribute, names, line, _ in _stores_on_self(init, qualify, _methods(cls))] if init is not None else []
    stored += _guarded_attributes(cls, qualify) if checks_types else []
    if is_record(cls, qualify):
        stored += [
            (statement.target.id, names, statement.lineno)
            for statement in cls.body
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
            and not _class_level(statement.annotation, qualify) and (names := _instance_types(statement.annotation, qualify))
        ]
    return stored


def _guarded_attributes(cls: ast.ClassDef, qualify) -> list[tuple[str, list[str], int]]:  # type: ignore[no-untyped-def]
    """Attributes a method of the class raises unless they are of a type (``if not isinstance(self._optimizer,
    torch.optim.Optimizer): raise ValueError(...)``, in a property): the class declares what its instances
    keep there, as an annotation would (``syntax.type_guards``)."""
    return [
        (attribute, names, line)
        for method in _methods(cls).values() if not _decorator_names(method) & {"staticmethod", "classmethod"}
        for attribute, types, line in guarded_attributes(method)
        if (names := [name for t in types for name in _instance_types(t, qualify)])
    ]


def _class_level(annotation: ast.expr, qualify) -> bool:  # type: ignore[no-untyped-def]
    """``ClassVar[...]`` (or ``InitVar[...]``): an annotation in a record's body that is no field it stores."""
    generic = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    return (qualify(generic) or "").rpartition(".")[2] in ("ClassVar", "InitVar")


def stored_later_by(tree: ast.Module, module: str, is_package: bool) -> dict[str, list[tuple[str, list[str], int, str, bool, bool]]]:
    """What the instance methods of each class of a module, other than ``__init__``, store on ``self`` (as
    ``ModuleSummary.holdings`` says it), or put into a container on ``self`` from a call
    (``self.buffer[key] = torch.empty(n)``), and the class never sets back (``= None`` or ``del`` outside
    ``__init__``): class -> [(attribute, names, line, the method, whether the names are a parameter's
    annotation: what its caller hands it, whether it fills a container)], the first store of each
    attribute. An instance kept for the process keeps them after the work that needed them. Not part of the
    summary: only WG011 and WG007 ask, about the classes of instances another module keeps, so it is read on
    demand (every method of every class of every summarised module cost a fifth more summarising over
    torch)."""
    statements = list(_module_statements(tree.body))
    _, qualify = _qualifier(statements, module, is_package)
    return {cls.name: stored for cls in statements if isinstance(cls, ast.ClassDef) and (stored := _stored_later(cls, qualify))}


def module_level_instances(tree: ast.Module, module: str, is_package: bool) -> dict[str, tuple[str, int]]:
    """The module-level names bound once, to what a call returns (``_amp_state = AmpState()``): name -> (the
    absolute name called, the line); whoever asks decides whether that is a class of the project, whose
    instance the module keeps for the process. Not part of the summary: only WG012 asks, about a name
    another module stores into (``_amp_state.handle = handle``), so it is read on demand."""
    statements = list(_module_statements(tree.body))
    _, qualify = _qualifier(statements, module, is_package)
    found: dict[str, tuple[str, int]] = {}
    bound_again: set[str] = set()
    for statement in statements:
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target] if isinstance(statement, ast.AnnAssign) else []
        for target in targets:
            if not isinstance(target, ast.Name):
                continue
            if target.id in found:
                bound_again.add(target.id)
            value = statement.value  # type: ignore[union-attr]
            called = qualify(value.func) if isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)) else None
            found[target.id] = (called or "", statement.lineno)
    return {name: bound for name, bound in found.items() if bound[0] and name not in bound_again}


def _stored_later(cls: ast.ClassDef, qualify) -> list[tuple[str, list[str], int, str, bool, bool]]:  # type: ignore[no-untyped-def]
    """``stored_later_by`` for one class. Static and class methods have no instance; what ``__init__``
    stores is the instance's own, handed over as it is built."""
    methods = [s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name != "__init__"]
    instance_methods = [m for m in methods if m.args.args and not _decorator_names(m) & {"staticmethod", "classmethod"}]
    released: set[str] = set()
    for method in instance_methods:
        receiver = method.args.args[0].arg
        released |= attributes_set_back(method.body, lambda target, me=receiver: isinstance(target, ast.Name) and target.id == me)  # type: ignore[misc]
    fills = {method: _fills_on_self(method, qualify) for method in instance_methods}
    # a container the class also takes elements out of (``self._num_samples.pop(module)``) holds them while
    # a piece of work runs, not for the process (read only for a class that fills one: most fill none)
    emptied = {
        target.attr for method in instance_methods for node in walk(method)
        if isinstance(target := _emptied(node), ast.Attribute) and getattr(target.value, "id", None) == method.args.args[0].arg
    } if any(fills.values()) else set()
    found: dict[str, tuple[str, list[str], int, str, bool, bool]] = {}
    own = _methods(cls)
    for method in instance_methods:
        for attribute, names, line, how in [*_stores_on_self(method, qualify, own), *fills[method]]:
            # an annotation alone (``self._hooks: List[Hook] = []``) says what a container will hold, not that it is kept
            if attribute not in released and attribute not in found and how != "annotation" and not (how == "fill" and attribute in emptied):
                found[attribute] = (attribute, names, line, method.name, how == "parameter", how == "fill")
    return list(found.values())


def _fills_on_self(method: ast.FunctionDef | ast.AsyncFunctionDef, qualify) -> list[tuple[str, list[str], int, str]]:  # type: ignore[no-untyped-def]
    """What ``method`` puts into a container on its receiver straight from a call, as far as the callee's
    name says (``self.buffer[(name, dtype)] = torch.empty(n)``, ``self.pool.append(torch.zeros(n))``):
    (attribute, absolute names, line, ``fill``), in the shape ``_stores_on_self`` answers."""
    receiver = method.args.args[0].arg
    found = []
    for node in every_statement(method.body):
        container, element = filled_element(node) or (None, None)
        if not (isinstance(container, ast.Attribute) and getattr(container.value, "id", None) == receiver and isinstance(element, ast.Call)):
            continue
        if (name := qualify(element.func)) is not None:
            found.append((container.attr, [name], node.lineno, "fill"))
    return found


def filled_element(statement: ast.AST) -> Optional[tuple[ast.expr, ast.expr]]:
    """The container a statement puts one element into, and that element: ``X[k] = v``, ``X.append(v)``,
    ``X.add(v)``, ``X.insert(i, v)``, ``X.setdefault(k, v)`` (``X`` any expression: ``self.pool``)."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Subscript):
        return statement.targets[0].value, statement.value
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and isinstance(statement.value.func, ast.Attribute):
        position = _ELEMENT_ARGUMENT.get(statement.value.func.attr)
        if position is not None and len(statement.value.args) > position:
            return statement.value.func.value, statement.value.args[position]
    return None


def _decorator_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The last part of each plain decorator's name: ``staticmethod``, ``classmethod``, ``property``."""
    return {getattr(d, "id", getattr(d, "attr", "")) for d in function.decorator_list}


def _stores_on_self(method: ast.FunctionDef | ast.AsyncFunctionDef, qualify, methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]) -> list[tuple[str, list[str], int, str]]:  # type: ignore[no-untyped-def]
    """What ``method`` stores on its receiver, as far as a name says: ``self.X = f(...)`` (the callee, through
    the moves a model is put through, ``Net(cfg).half().to(device)``), ``self.X = param`` (the parameter's
    annotation), ``self.X: T = ...`` (``T``): (attribute, absolute names, line, how the names are known:
    ``call``, ``parameter`` (its annotation: what the caller hands) or ``annotation`` (the store's own)).
    A store of a local or of what one of the class's ``methods`` returns is known by what built it
    (``_built_for_self``). Who asks decides what those names make."""
    if not method.args.args:
        return []
    receiver = method.args.args[0].arg
    annotations = {a.arg: a.annotation for a in [*method.args.args, *method.args.kwonlyargs] if a.annotation is not None}
    locals_ = _Locals(method)
    found = []
    for node in every_statement(method.body):  # stores are statements: no expression is entered
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None and isinstance(node, ast.Assign):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        attribute = next((t.attr for t in targets if isinstance(t, ast.Attribute) and getattr(t.value, "id", None) == receiver), None)
        if attribute is None:
            continue
        value = node.value
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _MOVES | {"eval"} and isinstance(value.func.value, ast.Call):
            value = value.func.value
        how = "call"
        if isinstance(value, ast.Call):  # ``self.buffer = torch.zeros(...)``, ``self.chunk = Chunk(...)``
            spelled = [name] if (name := qualify(value.func)) else []
        else:  # ``self.x: T = ...``, or ``self.model = model`` with ``model: nn.Module``
            said = node.annotation if isinstance(node, ast.AnnAssign) else None
            handed = isinstance(value, ast.Name) and value.id in annotations
            if said is None and handed:
                said = annotations.get(value.id)  # type: ignore[union-attr]
            how = "parameter" if handed else "annotation"
            spelled = _instance_types(said, qualify) if said is not None else []
            if not spelled and isinstance(value, ast.Name) and (guarded := guarded_types(method).get(value.id)):
                spelled, how = [name for t in guarded[0] for name in _instance_types(t, qualify)], "parameter"  # ``if not isinstance(optimizer, T): raise``
        if not spelled and not isinstance(node, ast.AnnAssign):
            spelled, how = _built_for_self(node.value, receiver, locals_, methods, qualify), "call"
        if spelled:
            found.append((attribute, spelled, node.lineno, how))
    return found


def _alternative_constructors(cls: ast.ClassDef, module: str, qualify) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    """``ModuleSummary.builds`` for the class's static and class methods that build what they return
    (``@staticmethod def build(cfg): model = ZoeDepth(cfg); ...; return model``, ``@classmethod def
    create(cls, core): return cls(core)``), as ``Class.method``: calling one through the class builds it.
    ``cls`` is the class itself."""
    found: dict[str, list[str]] = {}
    for method in _methods(cls).values():
        kinds = _decorator_names(method) & {"staticmethod", "classmethod"}
        if len(method.decorator_list) != 1 or not kinds:
            continue
        receiver = method.args.args[0].arg if "classmethod" in kinds and method.args.args else cls.name
        if built := built_and_returned(method, _naming_the_class(cls.name, receiver, f"{module}.{cls.name}", qualify)):
            found[f"{cls.name}.{method.name}"] = built
    return found


def _naming_the_class(name: str, receiver: str, own: str, qualify):  # type: ignore[no-untyped-def]
    """``qualify``, where the class's name and a class method's ``cls`` stand for the class ``own``, also
    with an attribute (``ZoeDepth.build``: ``pkg.zoe.ZoeDepth.build``, another of its constructors)."""
    def naming(expr: ast.expr) -> Optional[str]:
        if isinstance(expr, ast.Name) and expr.id in (name, receiver):
            return own
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in (name, receiver):
            return f"{own}.{expr.attr}"
        return qualify(expr)
    return naming


def _methods(cls: ast.ClassDef) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The methods a class body defines, by name."""
    return {s.name: s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _built_for_self(value: ast.expr, receiver: str, locals_: _Locals, methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef], qualify) -> list[str]:  # type: ignore[no-untyped-def]
    """What a store on ``self`` keeps when no callee or annotation names it: a local, built by a call and then
    prepared (``model = Net(); model.load_state_dict(sd); self.model = model.cuda().eval()``), or what a
    method of the class builds and returns (``self.model = self.load_model(path)``, ``model = Net(); ...;
    return model.cuda()``): [the absolute name called to build it], when every step after it is a move or
    ``eval()``, which return the same object. Anything else computed on the way (an index, an operator,
    another method's result) is left out: it may be another object."""
    called = value
    while isinstance(called, ast.Call) and isinstance(called.func, ast.Attribute) and called.func.attr in _MOVES | {"eval"}:
        called = called.func.value
    derivation: Optional[tuple[str, ...] | list[str]]
    if isinstance(called, ast.Call) and isinstance(called.func, ast.Attribute) and getattr(called.func.value, "id", None) == receiver:
        own = methods.get(called.func.attr)
        derivation = built_and_returned(own, qualify) if own is not None and not own.decorator_list else None
    else:
        derivation = _derivation(locals_, value, qualify, frozenset())
    if not derivation or any(step.lstrip(".") not in _MOVES | {"eval"} for step in derivation[1:]):
        return []
    return [derivation[0]]


def parameters_kept(cls: ast.ClassDef) -> list[tuple[str, str, int, int]]:
    """What ``cls.__init__`` stores on ``self`` straight from an unannotated parameter it never rebinds
    (``self.model = model``): (attribute, parameter, its position as callers pass it, -1 for keyword-only,
    line). Nothing in the class says what that is; each call does (``Patcher(model=net)`` holds ``net``)."""
    init = next((s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"), None)
    if init is None or not (init.args.posonlyargs or init.args.args):
        return []
    positional = [*init.args.posonlyargs, *init.args.args]
    receiver = positional[0].arg
    positions = {a.arg: i - 1 for i, a in enumerate(positional) if i and a.annotation is None}
    positions.update({a.arg: -1 for a in init.args.kwonlyargs if a.annotation is None})
    stores: list[tuple[str, str, int]] = []
    rebound: set[str] = set()
    for node in every_statement(init.body):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        rebound |= {t.id for t in targets if isinstance(t, ast.Name)}
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in positions:
            stores += [(t.attr, node.value.id, node.lineno) for t in targets if isinstance(t, ast.Attribute) and getattr(t.value, "id", None) == receiver]
    return [(attribute, parameter, positions[parameter], line) for attribute, parameter, line in stores if parameter not in rebound]


#: The steps of a derivation (``built_and_returned``) besides a method (``.unsqueeze``) and a call that takes
#: it first (``(torch.abs)``): an operator or a comparison, and an index or a slice.
OPERATOR_STEP = "op"
INDEX_STEP = "[]"


def built_and_returned(function: ast.FunctionDef | ast.AsyncFunctionDef, qualify) -> Optional[list[str]]:  # type: ignore[no-untyped-def]
    """What a function builds and returns, on every path that returns something: the absolute name it calls
    to build it, then each step that computes the result from that (``return Net(cfg)``: ``[Net]``;
    ``model = Net(cfg); ...; return model``, where a rebinding from the object itself, ``model =
    model.half()``, keeps it; ``mask = torch.arange(n).unsqueeze(1) <= k; return mask``: ``[torch.arange,
    .unsqueeze, op]``). Which steps keep what the name makes (a model, a tensor) the reader judges, knowing
    the framework; a parameter or anything else returned is the caller's, and says nothing."""
    returns = [r.value for r in own_returns(function) if not (isinstance(r.value, ast.Constant) and r.value.value is None)]
    if not returns or not all(isinstance(value, _DERIVABLE) for value in returns):
        return None  # ``return self.x``, a literal: nothing the function builds
    locals_ = _Locals(function)
    found = {_derivation(locals_, value, qualify, frozenset()) for value in returns}
    built = found.pop() if len(found) == 1 else None
    return list(built) if built else None


_DERIVABLE = (ast.Call, ast.Name, ast.BinOp, ast.Compare, ast.UnaryOp, ast.Subscript)


def filled_parameter(function: ast.FunctionDef | ast.AsyncFunctionDef, qualify) -> Optional[list]:  # type: ignore[no-untyped-def]
    """Where a function stores what it builds into a container its caller hands it (flashinfer's
    ``get_w2_permute_indices_with_cache(cache, weight, ...)``: ``cache[key] = permute_indices``, a local
    each branch binds to a tensor it builds): [the container's position as callers pass it, then each
    derivation of what it stores, one per binding of a stored local]. None where it stores into no
    parameter or into several, or stores anything it does not build (the caller's own ``weight``): what a
    call leaves there is then the caller's to judge."""
    positional = [argument.arg for argument in (*function.args.posonlyargs, *function.args.args)]
    stores = [
        (target.value.id, statement.value)
        for statement in module_level(function.body)
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1
        and isinstance(target := statement.targets[0], ast.Subscript) and isinstance(target.value, ast.Name)
        and target.value.id in positional
    ]
    if not stores or len({parameter for parameter, _ in stores}) > 1:
        return None
    locals_ = _Locals(function)
    derivations: list[list[str]] = []
    container = stores[0][0]
    for _, value in stores:
        bound = locals_.values(value.id) if isinstance(value, ast.Name) else None
        # ``if gated: x = f(w) else: x = torch.arange(n)``, then ``cache[k] = x``; ``x = cache[k]`` after it
        # reads back what was stored, no new source
        bound = [each for each in bound if not _mentions(each, container)] if bound else None
        for each in bound or [value]:
            derived = _derivation(locals_, each, qualify, frozenset({value.id} if bound else ()))  # type: ignore[union-attr]
            if derived is None:
                return None
            if list(derived) not in derivations:
                derivations.append(list(derived))
    return [positional.index(container), derivations]


class _Locals:
    """A function's locals as its own statements bind them (not its nested functions'), read in one walk
    the first time a derivation needs them: each name's values, and the names no derivation follows (a
    loop's or a ``with``'s target, a name another target binds, ``model, _ = load(path)``, whose value does
    not mention it). An item or attribute store (``rows[index] = old``) binds no name: the object stays the
    one it was built as, filled in place. A rebinding from the name itself (``model = model.half()``,
    ``mask = mask | sink``) keeps what it holds, so it is left out. Whether a value mentions a name is asked
    only of the names a derivation follows."""

    def __init__(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.function = function
        self._bound: Optional[dict[str, list[ast.expr]]] = None  # ``name = value``
        self._within: dict[str, list[ast.expr]] = {}  # ``name`` in another target, with the value bound there
        self._loops: set[str] = set()  # a loop's or a ``with``'s targets

    def values(self, name: str) -> Optional[list[ast.expr]]:
        """The values bound to ``name``, or None when it cannot be followed."""
        if self._bound is None:
            self._bound = {}
            for statement in module_level(self.function.body):
                self._read(statement)
        if name in self._loops or any(not _mentions(value, name) for value in self._within.get(name, ())):
            return None
        return [value for value in self._bound.get(name, ()) if not _mentions(value, name)]

    def _read(self, statement: ast.stmt) -> None:
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
            bound = [statement.target] if isinstance(statement, (ast.For, ast.AsyncFor)) else [i.optional_vars for i in statement.items if i.optional_vars]
            self._loops.update(n.id for target in bound for n in walk(target) if isinstance(n, ast.Name))
        if not isinstance(statement, (ast.Assign, ast.AnnAssign)) or statement.value is None:
            return
        for target in statement.targets if isinstance(statement, ast.Assign) else [statement.target]:
            if isinstance(target, ast.Name):
                self._bound.setdefault(target.id, []).append(statement.value)  # type: ignore[union-attr]
            else:
                for name in (n.id for n in walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)):
                    self._within.setdefault(name, []).append(statement.value)


def _derivation(locals_: _Locals, value: ast.expr, qualify, seen: frozenset[str]) -> Optional[tuple[str, ...]]:  # type: ignore[no-untyped-def]
    """The derivation of ``value`` in the function: the name called to build what it derives from, then the
    steps; None when it derives from nothing the function builds (a parameter, a constant)."""
    if isinstance(value, ast.Call):
        callee = qualify(value.func)
        if callee is None and isinstance(value.func, ast.Attribute):  # a method of what an expression computes
            inner = _derivation(locals_, value.func.value, qualify, seen)
            return (*inner, f".{value.func.attr}") if inner else None
        if callee is None:
            return None
        # ``torch.abs(x)`` computes from ``x``, or builds: the reader asks which. Only torch's functions are
        # read as computing (the reader keeps no other call's result), so no other call looks further.
        inner = _derivation(locals_, value.args[0], qualify, seen) if value.args and callee.startswith("torch.") else None
        return (*inner, f"({callee})") if inner else (callee,)
    if isinstance(value, (ast.BinOp, ast.Compare)):
        operands = [value.left, value.right] if isinstance(value, ast.BinOp) else [value.left, *value.comparators]
        inner = next(filter(None, (_derivation(locals_, operand, qualify, seen) for operand in operands)), None)
        return (*inner, OPERATOR_STEP) if inner else None
    if isinstance(value, ast.UnaryOp):
        inner = _derivation(locals_, value.operand, qualify, seen)
        return (*inner, OPERATOR_STEP) if inner else None
    if isinstance(value, ast.Subscript):
        inner = _derivation(locals_, value.value, qualify, seen)
        return (*inner, INDEX_STEP) if inner else None
    if isinstance(value, ast.Name) and value.id not in seen:
        bound = locals_.values(value.id)
        if bound is None:
            return None
        found = {_derivation(locals_, each, qualify, seen | {value.id}) for each in bound}
        return found.pop() if len(found) == 1 else None
    return None


#: Methods only ``nn.Module`` has: a receiver they are called on is a module, whatever its name.
MODULE_ONLY_METHODS = frozenset(
    "register_forward_hook register_forward_pre_hook register_full_backward_hook register_full_backward_pre_hook "
    "named_modules named_children named_buffers named_parameters parameters register_buffer register_module "
    "get_submodule".split()
)
#: What a model is put through after it is loaded: ``eval()`` or ``load_state_dict(...)``, then a move or a
#: cast (``to(device)``, ``half()``). Each alone has other owners (an evaluator's ``eval()``, an optimizer's
#: ``load_state_dict``, a tensor's ``to``); a receiver that gets two of them, one a mode or a state, is a model.
MODEL_PREPARATIONS = frozenset({"eval", "load_state_dict"})
#: ``nn.Module``'s methods that convert the module in place and return it (``model = Net().to(device).eval()``):
#: along a chain of them, each call's receiver is the object the chain starts from.
MODULE_METHODS_RETURNING_SELF = frozenset(
    "to cuda cpu xpu ipu mtia eval train half float double bfloat16 type apply share_memory requires_grad_ to_empty".split()
)
_MOVES = frozenset("to cuda cpu half float double bfloat16".split())
#: The methods whose absence from a function's text spares reading it for modules known by use (a move
#: alone shows nothing)
MODEL_WORDS = MODULE_ONLY_METHODS | MODEL_PREPARATIONS
_READ_CALLS = MODEL_WORDS | _MOVES


def treated_as_modules(function: ast.AST, receiver: Callable[[ast.expr], Optional[str]]) -> dict[str, tuple[str, int]]:
    """Each receiver ``function`` shows to be an ``nn.Module`` whatever its type says, or nothing is known of
    it, named by ``receiver`` (``None`` for a receiver of no interest), read in one walk: a module-only method
    called on it (``m.named_parameters()``), or a model's preparation (``m.eval()`` with no argument,
    ``m.load_state_dict(sd)``) beside a move, a cast or the other preparation. The method and the line of that
    call, for each."""
    found: dict[str, tuple[str, int]] = {}
    prepared: dict[str, tuple[str, int]] = {}
    methods: dict[str, set[str]] = {}
    for node in walk(function):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _READ_CALLS):
            continue
        method = node.func.attr
        name = receiver(chain_start(node.func.value))
        if name is None or name in found or (method == "eval" and (node.args or node.keywords)):
            continue
        if method in MODULE_ONLY_METHODS:
            found[name] = (method, node.lineno)
            continue
        methods.setdefault(name, set()).add(method)
        if method in MODEL_PREPARATIONS:
            prepared.setdefault(name, (method, node.lineno))
    for name, called in methods.items():
        if name not in found and name in prepared and len(called) > 1:
            found[name] = prepared[name]
    return found


def chain_start(expr: ast.expr) -> ast.expr:
    """What a chain of in-place conversions starts from: ``model`` for ``model.to(device).eval()``, whose
    every call returns the module it is called on."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in MODULE_METHODS_RETURNING_SELF:
        expr = expr.func.value
    return expr


def prepared_in_a_chain(call: ast.Call) -> Optional[str]:
    """The method that shows a chain of calls on something built here to make a model, by the standard
    ``treated_as_modules`` holds a local to: ``Attention(...).to(device).eval()`` (a preparation beside a
    move), or a module-only method anywhere along it. None unless the chain starts at a call."""
    methods: list[str] = []
    node: ast.expr = call
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in _READ_CALLS and not (node.func.attr == "eval" and (node.args or node.keywords)):
            methods.append(node.func.attr)
        node = node.func.value
    if not isinstance(node, ast.Call):
        return None
    only = next((method for method in methods if method in MODULE_ONLY_METHODS), None)
    prepared = next((method for method in methods if method in MODEL_PREPARATIONS), None)
    return only or (prepared if prepared and len(set(methods)) > 1 else None)


#: Methods only a tensor (or its storage) has: no ``nn.Module``, array or Python object answers them, so a
#: receiver they are called on is a tensor, whatever its name (``Tensor.requires_grad_`` is left out: modules
#: have it too).
TENSOR_ONLY_METHODS = frozenset(
    "register_post_accumulate_grad_hook retain_grad data_ptr untyped_storage numel nelement element_size "
    "storage_offset is_contiguous share_memory_ record_stream".split()
)


def treated_as_tensors(function: ast.AST) -> dict[str, tuple[str, int]]:
    """Each plain name ``function`` calls a tensor-only method on (``p.data_ptr()``), with the method and
    the line of the first such call, read in one walk."""
    found: dict[str, tuple[str, int]] = {}
    for node in walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in TENSOR_ONLY_METHODS:
            name = named(node.func.value)
            if name is not None and name not in found:
                found[name] = (node.func.attr, node.lineno)
    return found


def named(receiver: ast.expr) -> Optional[str]:
    """``model`` for the receiver ``model``: a plain name, for ``treated_as_modules``."""
    return receiver.id if isinstance(receiver, ast.Name) else None


def returned_model(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Optional[tuple[str, str, int]]:
    """A local a function returns on every path that returns something (``return model``, or moved on the
    way out, ``return model.to(device)``) and treats as a module (``treated_as_modules``): what it loaded
    through calls nothing here can type (a registry's class, a config's factory). The local's name, the
    method and its line; a parameter returned is the caller's, and says nothing."""
    returns = [r.value for r in own_returns(function) if not (isinstance(r.value, ast.Constant) and r.value.value is None)]
    roots = {_returned_local(value) for value in returns}
    name = roots.pop() if len(roots) == 1 else None
    if name is None or name in {parameter.arg for parameter in function_parameters(function)}:
        return None
    used = treated_as_modules(function, named).get(name)
    return (name, *used) if used is not None else None


def _returned_local(value: Optional[ast.expr]) -> Optional[str]:
    """``model`` in ``return model``, ``return model.to(device)`` or ``return model.eval().half()``."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _MOVES | {"eval"}:
        value = value.func.value
    return value.id if isinstance(value, ast.Name) else None


def _mentions(expr: ast.expr, name: str) -> bool:
    return any(isinstance(node, ast.Name) and node.id == name for node in walk(expr))


#: Generics whose parameters are no instances: ``type[Tensor]`` holds a class, ``Callable[[Tensor], ...]`` a function.
_NOT_INSTANCES = frozenset({"type", "Type", "Callable", "Literal"})


def _instance_types(annotation: ast.expr, qualify) -> list[str]:  # type: ignore[no-untyped-def]
    """The absolute names of the classes whose instances an annotation says it holds: ``Chunk`` in
    ``Optional[List[Chunk]]`` and ``"Chunk"``, both sides of ``Dict[str, nn.Module]`` and ``A | B``; never
    what ``type[...]`` or ``Callable[...]`` name, nor the generic itself."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            return _instance_types(ast.parse(annotation.value, mode="eval").body, qualify)
        except SyntaxError:
            return []
    if isinstance(annotation, (ast.Name, ast.Attribute)):
        name = qualify(annotation)
        return [name] if name else []
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _instance_types(annotation.left, qualify) + _instance_types(annotation.right, qualify)
    if isinstance(annotation, ast.Subscript):
        generic = qualify(annotation.value) or ""
        if generic.rpartition(".")[2] in _NOT_INSTANCES:
            return []
        parts = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        return [name for part in parts for name in _instance_types(part, qualify)]
    return []


#: Calls that put their arguments into the container they are called on.
KEEPING_METHODS = frozenset({"append", "add", "setdefault", "insert", "appendleft", "extend"})
#: Which of their arguments is the one element they put in, for those that take one (``insert(i, x)``;
#: ``extend`` takes an iterable of them).
_ELEMENT_ARGUMENT = {"append": 0, "add": 0, "appendleft": 0, "insert": 1, "setdefault": 1}


def _summarize_keepers(summary: ModuleSummary, statements: list[ast.stmt], names: Names, qualify, mentions: Mentions) -> None:  # type: ignore[no-untyped-def]
    """Functions that put one of their parameters into a long-lived container of this module, or cache
    their calls: what a caller in another module passes there is kept for as long as the container lives
    (``Store.put(tensor)`` from a training loop, ``_warn_once(self)``). Module-level functions, static and
    class methods, and the instance methods of a singleton reached through its accessor
    (``Manager.get_instance().register(self)``, keyed ``Manager.get_instance().register``)."""
    held = mentions.words([*summary.containers, *(n.rpartition(".")[2] for n in summary.class_containers)])
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _summarize_keeper(summary, [statement.name], statement, None, {}, qualify, mentions.within(held, statement))
        elif isinstance(statement, ast.ClassDef):
            accessors = _singleton_accessors(statement, mentions)
            state = _instance_containers(statement, names) if accessors else {}
            state_held = mentions.words(list(state))
            for method in statement.body:
                if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    paths = [f"{statement.name}.{method.name}"] + [f"{statement.name}.{a}().{method.name}" for a in accessors]
                    mentioned = mentions.within(held, method) or mentions.within(state_held, method)
                    _summarize_keeper(summary, paths, method, statement.name, state, qualify, mentioned)


def keeps_created_instances(cls: ast.ClassDef) -> bool:
    """Whether the class's ``__call__`` stores the instance it creates in a table or an attribute, as a
    singleton metaclass does (``cls._instances[cls] = super().__call__(*args)``, or through a local bound to
    ``cls.__new__(cls)``). Used as a metaclass, its classes' instances then live as long as that table."""
    call = next((s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__call__"), None)
    if call is None:
        return False
    created: set[str] = set()
    stores: list[ast.Assign] = []
    for node in walk(call):
        if isinstance(node, ast.Assign):
            if _creates_an_instance(node.value):
                created.update(t.id for t in node.targets if isinstance(t, ast.Name))
            stores.append(node)
    return any(
        (_creates_an_instance(node.value) or (isinstance(node.value, ast.Name) and node.value.id in created))
        and any(isinstance(t, (ast.Subscript, ast.Attribute)) for t in node.targets)
        for node in stores
    )


def _creates_an_instance(value: ast.expr) -> bool:
    """``super().__call__(...)``, ``type.__call__(cls, ...)``, ``cls.__new__(cls)``: what a metaclass's
    ``__call__`` makes."""
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in ("__call__", "__new__")


def _singleton_accessors(cls: ast.ClassDef, mentions: Mentions) -> list[str]:
    """Class methods that store an instance of the class on it (``cls._instance = cls.__new__(cls)``): what
    they return lives as long as the class. Only a method whose text calls its ``cls`` is walked."""
    found = []
    for method in cls.body:
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.args.args and any(
            getattr(d, "id", "") == "classmethod" for d in method.decorator_list
        ):
            receiver = method.args.args[0].arg
            if not mentions.within(mentions.words([receiver], then=r"\s*(?:\(|\.\s*__new__)"), method):
                continue
            for node in walk(method):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                    made = node.value.func
                    made = made.value if isinstance(made, ast.Attribute) and made.attr == "__new__" else made
                    on_class = any(isinstance(t, ast.Attribute) and getattr(t.value, "id", None) == receiver for t in node.targets)
                    if on_class and isinstance(made, ast.Name) and made.id == receiver:
                        found.append(method.name)
                        break
    return found


def _instance_containers(cls: ast.ClassDef, names: Names) -> dict[str, tuple[int, str]]:
    """``self.X = []`` in any method: ``X`` -> (line, ContainerType value)."""
    found: dict[str, tuple[int, str]] = {}
    for method in cls.body:
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.args.args:
            receiver = method.args.args[0].arg
            for node in every_statement(method.body):
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target = node.targets[0]
                    if isinstance(target, ast.Attribute) and getattr(target.value, "id", None) == receiver:
                        constructor = classify(node.value, names)
                        if constructor is not None and constructor.type is not ContainerType.PLACEHOLDER:
                            found.setdefault(target.attr, (node.lineno, constructor.type.value))
    return found


def _summarize_keeper(  # type: ignore[no-untyped-def]
    summary: ModuleSummary,
    paths: list[str],
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    cls: Optional[str],
    state: dict[str, tuple[int, str]],
    qualify,
    mentioned: bool,
) -> None:
    """``paths``: the names callers reach ``function`` by; ``state``: a singleton's instance containers;
    ``mentioned``: whether its text names any of the containers (if not, only its decorators are read)."""
    decorators = _decorator_names(function)
    bound = cls is not None and not decorators & {"classmethod", "staticmethod"}
    if bound and not state:
        return  # an instance method: which instance a caller elsewhere holds is not known here
    parameters = [*function.args.posonlyargs, *function.args.args]
    receiver = parameters.pop(0).arg if (bound or "classmethod" in decorators) and parameters else None
    if bound:
        paths = paths[1:]  # reached only through the singleton's accessor
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if parameters and qualify(target) in CACHE_FUNCTIONS and all(p.annotation is None for p in parameters):
            summary.keepers[paths[0]] = (-1, paths[0], decorator.lineno, "cache", ast.unparse(target))
            return
    if not mentioned:
        return  # it never names a long-lived container of this module
    positions = {parameter.arg: position for position, parameter in enumerate(parameters)}
    nodes = list(walk(function))
    rebound = {
        target.id
        for node in nodes
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    }

    def container(expr: ast.expr) -> Optional[tuple[str, tuple[int, str]]]:
        if isinstance(expr, ast.Name) and expr.id in summary.containers and expr.id not in rebound:
            return expr.id, summary.containers[expr.id]
        if cls is not None and isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
            if bound and expr.value.id == receiver and expr.attr in state:
                return f"{paths[0].rpartition('.')[0]}.{expr.attr}", state[expr.attr]  # ``Manager.get_instance().overrides``
            if not bound and expr.value.id in (receiver, cls) and f"{cls}.{expr.attr}" in summary.class_containers:
                return f"{cls}.{expr.attr}", summary.class_containers[f"{cls}.{expr.attr}"]
        return None

    for node in nodes:
        kept: list[ast.expr] = []
        holder = None
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and (holder := container(target.value)):
                    kept = [target.slice, node.value]
                    break
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in KEEPING_METHODS:
            holder = container(node.func.value)
            kept = list(node.args)
        for expr in kept:
            parts = expr.elts if isinstance(expr, ast.Tuple) else [expr]
            for part in parts:
                if holder and isinstance(part, ast.Name) and part.id in positions:
                    name, (line, kind) = holder
                    for path in paths:
                        summary.keepers[path] = (positions[part.id], name, line, kind, "")
                    return


def emptied_by(tree: ast.Module, module: str, is_package: bool) -> set[str]:
    """The names, of this module or imported, that it empties: ``layers.registry.clear()``,
    ``registry.pop(k)``, ``del registry[k]``, wherever it happens (a function importing locally included).
    Not part of the summary: only WG005 asks, about the neighbours of one module, so it is read on demand."""
    names, local = Names(), Names()
    for node in walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            local.add_import(node, module_level=False)
    for statement in tree.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            names.add_import(statement, module_level=True)
    found = set()
    for node in walk(tree):
        target = _emptied(node)
        if isinstance(target, (ast.Name, ast.Attribute)):
            qualified = names.qualify(target) or local.qualify(target)
            if qualified and not qualified.startswith("builtins."):
                found.add(absolute(qualified, module, is_package))
    return found


def _emptied(node: ast.AST) -> Optional[ast.expr]:
    """The container ``node`` takes elements out of: ``X`` of ``X.pop(k)``, ``X.clear()``, ``del X[k]``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _EMPTYING:
        return node.func.value
    if isinstance(node, ast.Delete):
        return next((t.value for t in node.targets if isinstance(t, ast.Subscript)), None)
    return None


def _module_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, looking into ``if``/``try`` blocks (``TYPE_CHECKING``, fallbacks)."""
    for statement in body:
        yield statement
        if isinstance(statement, ast.If):
            yield from _module_statements(statement.body)
            yield from _module_statements(statement.orelse)
        elif isinstance(statement, ast.Try):
            for block in (statement.body, statement.orelse, statement.finalbody, *(h.body for h in statement.handlers)):
                yield from _module_statements(block)


def _summarize_binding(summary: ModuleSummary, name: str, statement: ast.Assign | ast.AnnAssign, names: Names, qualify) -> None:  # type: ignore[no-untyped-def]
    value = statement.value
    assert value is not None
    constructor = classify(value, names)
    if constructor is not None and constructor.type is not ContainerType.PLACEHOLDER and not name.startswith("__"):
        summary.containers[name] = (statement.lineno, constructor.type.value)  # ``__all__`` holds strings
    cache_call = value.func if isinstance(value, ast.Call) else value
    if isinstance(cache_call, (ast.Name, ast.Attribute)) and qualify(cache_call) in CACHE_FUNCTIONS:
        summary.cache_wrappers.append(name)  # ``my_cache = functools.lru_cache(maxsize=None)``
    stands_for = _type_alias(value, qualify)
    if stands_for:
        summary.type_aliases[name] = stands_for


#: What makes a type variable, here and in the analysis of a module's own annotations.
TYPE_VARIABLES = frozenset({"typing.TypeVar", "typing_extensions.TypeVar"})


def _type_alias(value: ast.expr, qualify) -> list[str]:  # type: ignore[no-untyped-def]
    """``TypeVar("M", bound=nn.Module)``: its bound; ``TypeVar("O", Base, torch.optim.Optimizer)``: each
    constraint; ``nn.LayerNorm`` (a name bound to a class): the class. Absolute names; whoever asks decides
    what each is."""
    if isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)) and qualify(value.func) in TYPE_VARIABLES:
        bound = next((keyword.value for keyword in value.keywords if keyword.arg == "bound"), None)
        candidates = [bound] if bound is not None else value.args[1:]
        return [q for candidate in candidates if isinstance(candidate, (ast.Name, ast.Attribute)) and (q := qualify(candidate))]
    if isinstance(value, ast.Attribute) and value.attr[:1].isupper():
        qualified = qualify(value)
        return [qualified] if qualified else []
    return []


def wraps_a_cache(function: ast.FunctionDef | ast.AsyncFunctionDef, qualify) -> bool:  # type: ignore[no-untyped-def]
    """A decorator (or decorator factory) that applies ``functools.lru_cache``/``cache`` to the function it
    decorates: ``lru_cache(maxsize=n)(fn)`` or ``cache(fn)`` on one of its own (or a nested function's)
    parameters, ``return lru_cache(...)``, or a wrapper it defines under ``@lru_cache`` and returns (a disk
    cache in front of a memory one: ``def decorator(func): @lru_cache(maxsize) def wrapper(*args): ...``).
    A cache it keeps for something else (``@lru_cache`` on a warn-once helper inside ``deprecated``) does
    not make it one."""
    if any(qualify(d.func if isinstance(d, ast.Call) else d) in CACHE_FUNCTIONS for d in function.decorator_list):
        return False
    local = Names()  # ``import functools`` inside the wrapper counts as well
    for node in walk(function):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            local.add_import(node, module_level=True)

    def is_cache(expr: ast.expr) -> bool:
        expr = expr.func if isinstance(expr, ast.Call) else expr
        return isinstance(expr, (ast.Name, ast.Attribute)) and bool(CACHE_FUNCTIONS & {qualify(expr), local.qualify(expr)})

    for outer in (node for node in walk(function) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))):
        returned = {s.value.id for s in outer.body if isinstance(s, ast.Return) and isinstance(s.value, ast.Name)}
        if any(
            isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) and inner.name in returned and any(map(is_cache, inner.decorator_list))
            for inner in outer.body
        ):
            return True  # ``def decorator(func): @lru_cache(maxsize) def wrapper(*args): ...; return wrapper``
    for node, declaring in _nodes_with_their_functions(function):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Call) and is_cache(node.value.func):
            return True  # ``return functools.lru_cache(maxsize=None)``: hands out the cache decorator itself
        if isinstance(node, ast.Call) and is_cache(node.func) and node.args:
            applied = node.args[0]
            # applied where the decorated function is handed in (decoration time): one cache for every call;
            # applied inside a function nested deeper, which runs per call (flair's ``instance_lru_cache``
            # builds one per instance and stores it on ``self``): no cache outlives what it is built for
            if isinstance(applied, ast.Name) and declaring.get(applied.id) is declaring[""]:
                return True
    return False


_Function = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda]


def _nodes_with_their_functions(function: _Function) -> Iterator[tuple[ast.AST, dict[str, Optional[_Function]]]]:
    """Every node under ``function``, with the function that declares each parameter name visible there and,
    under ``""``, the innermost function the node runs in."""
    pending: list[tuple[ast.AST, dict[str, Optional[_Function]]]] = [(function, {})]
    while pending:
        node, declaring = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = node.args.args + node.args.posonlyargs + node.args.kwonlyargs
            declaring = {**declaring, **{argument.arg: node for argument in arguments}, "": node}
        else:
            yield node, declaring
        pending.extend((child, declaring) for child in ast.iter_child_nodes(node))


def _returned_type(annotation: Optional[ast.expr], qualify) -> Optional[str]:  # type: ignore[no-untyped-def]
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.Subscript) and qualify(annotation.value) in ("typing.Optional",):
        annotation = annotation.slice
    return qualify(annotation) if isinstance(annotation, (ast.Name, ast.Attribute)) else None


def _returned_tuple(annotation: Optional[ast.expr], qualify) -> Optional[list[str]]:  # type: ignore[no-untyped-def]
    """``-> Tuple[torch.Tensor, torch.Tensor]`` (or ``tuple[...]``): each element's absolute type, "" for one
    that is not a plain name; None for anything else, a tuple of any length (``Tuple[T, ...]``) included."""
    if not (isinstance(annotation, ast.Subscript) and qualify(annotation.value) in ("typing.Tuple", "builtins.tuple")):
        return None
    elements = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
    if any(isinstance(element, ast.Constant) and element.value is Ellipsis for element in elements):
        return None
    found = [_returned_type(element, qualify) or "" for element in elements]
    return found if any(found) else None


def _exports(tree: ast.Module, statements: list[ast.stmt], summary: ModuleSummary) -> tuple[list[str], bool]:
    """What ``from module import *`` binds of the module's own names, and whether ``__all__`` says so."""
    for statement in tree.body:
        if (
            isinstance(statement, ast.Assign)
            and any(isinstance(target, ast.Name) and target.id == "__all__" for target in statement.targets)
            and isinstance(statement.value, (ast.List, ast.Tuple))
        ):
            return [e.value for e in statement.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)], True
    defined = set(summary.aliases) | set(summary.classes) | set(summary.returns) | set(summary.returns_tuple) | set(summary.containers)
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defined.add(statement.name)
        elif isinstance(statement, ast.Assign):
            defined.update(target.id for target in statement.targets if isinstance(target, ast.Name))
    return sorted(name for name in defined if not name.startswith("_")), False
