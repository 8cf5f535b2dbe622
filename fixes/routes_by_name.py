"""Routes by which another module of the project may reach a container by a name it computes, which no
reference to it shows: ``getattr(module, name)``, ``vars(m)``, a walk of ``sys.modules``,
``importlib.import_module(x).NAME``, ``gc.get_objects()``, a class's ``__subclasses__()``, or a string that
names it (``"pkg.mod.NAME"`` in a configuration). Each one found refuses the fix, with where it is.
"""
from __future__ import annotations

import ast
import dataclasses
import functools
import re
from pathlib import Path
from typing import Callable, Optional

from flake8_weakglobals.analysis.call_routes import string_constants
from flake8_weakglobals.index.project import ModuleContext, context_for
from flake8_weakglobals.rules.findings import Finding
from flake8_weakglobals.syntax.mentions import Mentions
from flake8_weakglobals.syntax.qualified_names import Names
from flake8_weakglobals.syntax.scopes import Scopes

from .project_texts import MAX_FILES, mentioning, parsed, shown_path, spells, texts_under
from .references import imported_names
from .vendor import loaders_by_path

NAMESPACE_READS = frozenset({"builtins.vars", "inspect.getmembers", "inspect.getmembers_static"})

#: Identifiers a module must spell to reach a module or an object's attributes by a name it computes.
_BY_NAME_WORDS = frozenset(
    "getattr vars dir __dict__ getmembers getmembers_static import_module __import__ iter_modules "
    "walk_packages get_objects __subclasses__ __mro__ __bases__ getmro modules __globals__ globals attrgetter run_path run_module "
    "resolve_name pydoc f_globals get_referents get_referrers".split()
)
#: The builtins that run code they are given: a method of that name (``model.eval()``, in most files of a
#: PyTorch project) is no evaluation, so the files are picked by ``_calls_an_evaluator``, not by the words.
_EVALUATORS = ("eval", "exec")
#: The target of a read of whatever module a function comes from (``fn.__globals__``).
_ANY_MODULE = "<any module>"
#: What runs a file (by its path or a module's name) and returns its globals: any module's, read whole.
_RUNS_A_FILE = frozenset({"runpy.run_path", "runpy.run_module"})
#: The target of an evaluation of a computed name: any module's global, any class's or instance's attribute.
_ANY_NAME = "<any name>"
#: The target of a read of an object's class (``vars(type(self))``): whichever it is, a class, no module.
_A_CLASS = "<a class>"
#: The identifiers of ``_BY_NAME_WORDS`` that find objects by no name (``_finds_by_name``): a module that
#: spells none of them reads by name only what it names itself.
_FINDING_WORDS = frozenset(
    "import_module __import__ get_objects __subclasses__ __mro__ __bases__ getmro modules getmembers getmembers_static __globals__ "
    "run_path run_module resolve_name pydoc f_globals get_referents get_referrers".split()
)
_MODULES_BY_NAME = frozenset({"importlib.import_module", "builtins.__import__", "gc.get_objects", "inspect.getmro", "inspect.getmodule"})
#: What evaluates a name it is given, to any object (``eval("sys.modules[m]." + n)``, ``pkgutil.resolve_name(
#: "pkg.mod:" + name)``): given a computed string, it finds objects by name and reads them by name at once.
_EVALUATES_NAMES = frozenset({"builtins.eval", "builtins.exec", "pkgutil.resolve_name", "pydoc.locate"})
_RESOLVES_NAMES = frozenset({"pkgutil.resolve_name", "pydoc.locate"})
#: What hands back namespaces whole by no name: a frame's globals (the caller's module), the collector's
#: referents of a module (its ``__dict__``).
_NAMESPACES_BY_NO_NAME = frozenset({"f_globals"})
_REFERENTS = frozenset({"gc.get_referents", "gc.get_referrers"})
#: What a class reaches that no name shows: its bases, any class at all (``type(obj).__mro__``).
_CLASSES_REACHED = frozenset({"__mro__", "__bases__"})
#: Reads by name (``setattr`` only rebinds: a reset that binds a new container leaves the fix's behind, as it
#: left the dict).
_ATTRIBUTES_BY_NAME = frozenset({"builtins.getattr", "builtins.vars", "builtins.dir", "inspect.getmembers", "inspect.getmembers_static"})


@dataclasses.dataclass(frozen=True)
class _ByName:
    """How one module reaches objects by names it computes, from one parse and walk of it per run: what it
    finds by name (modules with ``importlib.import_module(name)`` or a walk of ``sys.modules``, the
    collector's objects, a class's ``__subclasses__()``) and the variables it binds them to; and where it
    reads attributes by name (``getattr(x, name)`` with a computed name, ``vars(x)``, ``dir(x)``,
    ``x.__dict__``), with the absolute name of ``x`` where it is an imported name ("" for anything else,
    ``self`` and ``cls`` aside) and the variable ``x`` is, if it is one."""

    #: ``(line, how, the variables bound to what it finds, whether it finds only classes)``
    found: tuple[tuple[int, str, frozenset[str], bool], ...] = ()
    #: ``(target, line, how, filters, variable, sweep)``: ``filters`` are what the code asks of a name before
    #: it reads it (``if name.endswith("Builder"): getattr(module, name)``), as ``(str method or "==",
    #: argument)``; ``sweep``: it reads every attribute (``vars(m)``, ``getattr(m, n)`` for each ``n`` of
    #: ``dir(m)``), not one named by a string the program was given
    attributes: tuple[tuple[str, int, str, tuple[tuple[str, str], ...], str, bool], ...] = ()
    #: ``(attribute, line, how)``: one attribute read with ``getattr`` by its constant name, from an object
    #: the code finds by a route no name shows (a function's result, an item of a list)
    blind: tuple[tuple[str, int, str], ...] = ()


def reached_by_name(scope: Path, files: dict[Path, str], finding: Finding, context: ModuleContext, names: frozenset[str]) -> Optional[str]:
    """Where a module of the project may find the container by a name it computes, which no reference
    shows: it reads by name the attributes of the container's module (or of a module that re-exports it),
    or of the class or instance that holds it; or it finds modules or classes by name and reads the
    attributes of what it found."""
    holders = {name.rpartition(".")[0] for name in names}  # the modules it is in; for a class's, the class
    attribute = finding.name.rpartition(".")[2]
    # One attribute named by a string (``"pkg.mod.Class"`` from a configuration) reaches the container only
    # where a string of the project names it, which ``_outside_reason`` refuses first; a sweep over every
    # attribute reaches it anyway.
    # A module reads the container by name only if it spells its name (a constant ``getattr``), a module
    # that holds it (a computed ``getattr`` of that module), or a way to find objects by no name at all.
    relevant = {attribute, *(holder.rpartition(".")[2] for holder in holders), *_FINDING_WORDS}
    evaluating = _evaluating(scope)
    for other in dict.fromkeys((*mentioning(scope, _BY_NAME_WORDS), *evaluating)):
        if other not in evaluating and not any(spells(scope, other, word) for word in relevant):
            continue
        found = _by_name(other, files[other])
        blind = next(((line, how) for named, line, how in found.blind if named == attribute), None)
        if blind is not None:
            return f"`{shown_path(other)}` line {blind[0]} {blind[1]}"
        reads = [(target, line, how, variable, sweep) for target, line, how, filters, variable, sweep in found.attributes if _passes(attribute, filters)]
        named = next(
            ((line, how) for target, line, how, _, _ in reads
             if target in holders or target == _ANY_NAME or (target == _ANY_MODULE and finding.scope == "module")),
            None,
        )
        if named is not None:
            return f"`{shown_path(other)}` line {named[0]} {named[1]}, which may find it where the fix cannot see"
        for line, how, bound, classes_only in found.found:
            if classes_only and finding.scope != "class" and not (finding.scope == "function" and "." in finding.name):
                continue  # a class's namespace holds no module's global, nor an instance's attribute (a cached method it does)
            spelled_read = next(((read_line, shown) for read_line, held, shown in _reads_of(other, files[other], attribute) if held in bound), None)
            if spelled_read is not None:  # ``mod = import_module("pkg." + part)`` then ``mod._REG``
                return (
                    f"`{shown_path(other)}` line {line} {how}, and line {spelled_read[0]} reads `{attribute}` from what it "
                    f"finds (`{spelled_read[1]}`): it may use the container in ways the fix cannot see"
                )
            # What it finds is read by a name it computes: whole, or one attribute whose name the module may build
            # from what it spells (``"counters:calls"`` then ``.upper()``, a descriptor's own name upper-cased).
            # What it finds is followed to that read through a variable, in place (``getattr`` handed to
            # ``partial``), or through a function of the module that returns it (``vars(_module(leaf))``).
            loose = _spelled_in_any_case(files[other], attribute)
            read = next(
                ((read_line, read_how, sweep) for target, read_line, read_how, variable, sweep in reads
                 if not target and variable in bound and (sweep or loose)),
                None,
            )
            if read is not None:
                built = "" if read[2] else f", and it spells `{attribute}` in some case, from which it may build that name"
                return (
                    f"`{shown_path(other)}` line {line} {how}, and line {read[0]} {read[1]}{built}: it may find the "
                    "container there and use it in ways the fix cannot see"
                )
    return None


@functools.lru_cache(maxsize=8)
def _evaluating(scope: Path) -> tuple[Path, ...]:
    """The project's files that call the builtins ``eval`` or ``exec``, once per run."""
    return tuple(path for path, text in (texts_under(scope) or {}).items() if _calls_an_evaluator(text))


def _calls_an_evaluator(text: str) -> bool:
    """Whether ``text`` calls ``eval(`` or ``exec(`` as a name, not as a method or a longer name: one
    ``str.find`` per occurrence (a pattern with a look-behind is tried at every character)."""
    for word in _EVALUATORS:
        at = text.find(word)
        while at != -1:
            before = text[at - 1] if at else " "
            after = text[at + len(word):at + len(word) + 8].lstrip()
            if not (before.isalnum() or before in "_.") and after.startswith("("):
                return True
            at = text.find(word, at + len(word))
    return False


def _spelled_in_any_case(text: str, attribute: str) -> bool:
    """Whether ``text`` spells the name ``attribute`` in any case, as a word of its own or a part of one
    between underscores or other punctuation (``calls`` in ``"counters:calls"`` for ``CALLS``,
    ``module_names`` for ``MODULE_NAMES``): the pieces a computed name is built from."""
    core = attribute.strip("_")
    return bool(core) and re.search(rf"(?i)(?<![a-z0-9]){re.escape(core)}(?![a-z0-9])", text) is not None


#: Where a by-name walk puts what it finds: ``for k, v in sys.modules.items()``, ``m = import_module(n)``.
_WALKED_VIEWS = frozenset({"values", "items"})
_COPIES = frozenset({"list", "tuple", "sorted", "reversed", "enumerate", "iter", "set"})


def _bound_to(found: ast.expr, scopes: Scopes) -> frozenset[str]:
    """The variables that ``found`` (a call or a table that yields objects) is bound to: the target of an
    assignment, the targets of a loop or a comprehension over it (or over its ``.values()``/``.items()``),
    what one entry of it is bound to (``sys.modules[name]``, ``sys.modules.get(name)``), and ``"<direct>"``
    where it is used in place (``getattr(import_module(n), a)``)."""
    node, parent = found, scopes.parent(found)
    if isinstance(parent, ast.Subscript) and parent.value is node:  # ``home = sys.modules[cls.__module__]``: one entry
        node, parent = parent, scopes.parent(parent)
    elif isinstance(parent, ast.Attribute) and parent.attr in _WALKED_VIEWS | {"get"}:
        call = scopes.parent(parent)
        if isinstance(call, ast.Call) and call.func is parent:
            node, parent = call, scopes.parent(call)
    while isinstance(parent, ast.Call) and parent.args[:1] == [node] and isinstance(parent.func, ast.Name) and parent.func.id in _COPIES:
        node, parent = parent, scopes.parent(parent)  # ``list(sys.modules.items())``: the same objects
    where = _scope_key(found, scopes)
    if isinstance(parent, ast.Assign) and parent.value is node:
        return frozenset(f"{where}:{n.id}" for target in parent.targets for n in ast.walk(target) if isinstance(n, ast.Name))
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is node:
        return frozenset(f"{where}:{n.id}" for n in ast.walk(parent.target) if isinstance(n, ast.Name))
    if isinstance(parent, ast.Return):  # ``def _module(leaf): return sys.modules[...]``: what its callers get
        function = next((scope for scope in scopes.chain(parent) if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
        if function is not None:
            return frozenset({"<direct>", _returned_by(function.name)})
    return frozenset({"<direct>"})


def _returned_by(function: str) -> str:
    """How ``_bound_to`` and ``_held_in`` name what a module function returns."""
    return f"<returned by {function}>"


def _scope_key(node: ast.AST, scopes: Scopes) -> int:
    """The function (or module) whose variables ``node`` sees first: a variable is matched within it."""
    return next((line for scope in scopes.chain(node) if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module))
                 for line in (getattr(scope, "lineno", 0),)), 0)


@dataclasses.dataclass(frozen=True)
class _Parsed:
    """One module of the project as the by-name questions read it: parsed, its imports, its scopes (indexed
    as questions reach into them) and the lines that name each word, shared by every question about it."""

    context: ModuleContext
    tree: ast.Module
    names: Names
    scopes: Scopes
    mentions: Mentions


@functools.lru_cache(maxsize=256)
def _parsed_module(path: Path, text: str) -> Optional[_Parsed]:
    context = context_for(path)
    tree = parsed(text)
    if tree is None or context is None:
        return None
    return _Parsed(context, tree, imported_names(tree), Scopes(tree), Mentions(text))


def _held_in(expr: ast.expr, names: Names, scopes: Scopes) -> str:
    """The variable ``expr`` is (``"<line of its function>:<name>"``), ``"<direct>"`` where ``expr`` finds an
    object by name in place (``import_module(n)``, ``sys.modules[n]``, ``sys.modules.get(n)``), else ""."""
    if isinstance(expr, ast.Name):
        return f"{_scope_key(expr, scopes)}:{expr.id}"
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and not _finds_by_name(expr, names, scopes):
        return _returned_by(expr.func.id)  # ``vars(_module(leaf))``: matched to what ``_module`` returns
    inner = expr
    if isinstance(inner, ast.Subscript):
        inner = inner.value
    elif isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr == "get":
        inner = inner.func.value
    return "<direct>" if _finds_by_name(expr, names, scopes) or (inner is not expr and _finds_by_name(inner, names, scopes)) else ""


@functools.lru_cache(maxsize=MAX_FILES)
def _reads_of(path: Path, text: str, attribute: str) -> tuple[tuple[int, str, str], ...]:
    """Where the module reads ``attribute`` by its own name (``x.NAME``, ``getattr(x, "NAME")``,
    ``x.__dict__["NAME"]``) from an object it holds in a variable or finds in place: ``(line, the variable
    as ``_held_in`` names it, the read as written)``. Matched against what it finds by name, these are the
    reads of a module or an object that no name of the project shows."""
    module = _parsed_module(path, text)
    if module is None:
        return ()
    names, scopes = module.names, module.scopes
    reads: list[tuple[int, str, str]] = []
    for node in scopes.index_parts(module.tree, functools.partial(Mentions.within, module.mentions.words({attribute}))):
        receiver: Optional[ast.expr] = None
        if isinstance(node, ast.Attribute) and node.attr == attribute:
            receiver = node.value
        elif isinstance(node, ast.Call) and names.qualify(node.func) == "builtins.getattr" and len(node.args) > 1:
            receiver = node.args[0] if isinstance(node.args[1], ast.Constant) and node.args[1].value == attribute else None
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == attribute:
            receiver = node.value.value if isinstance(node.value, ast.Attribute) and node.value.attr == "__dict__" else None
        held = _held_in(receiver, names, scopes) if receiver is not None else ""
        if held:
            reads.append((node.lineno, held, ast.unparse(node)[:50]))
    return tuple(reads)


@functools.lru_cache(maxsize=MAX_FILES)
def _by_name(path: Path, text: str) -> _ByName:
    module = _parsed_module(path, text)
    if module is None:
        return _ByName()
    context, tree, names, scopes = module.context, module.tree, module.names, module.scopes
    found: list[tuple[int, str, frozenset[str], bool]] = []
    attributes: list[tuple[str, int, str, tuple[tuple[str, str], ...], str, bool]] = []
    blind: list[tuple[str, int, str]] = []

    def target(expr: ast.expr) -> str:
        if (isinstance(expr, ast.Call) and names.qualify(expr.func) == "builtins.type") or (isinstance(expr, ast.Attribute) and expr.attr == "__class__"):
            return _A_CLASS  # ``vars(type(self))``: a class's namespace, never a module's
        named = names.qualify(expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None
        return context.absolute(named) if named is not None else _imported_by_constant(expr)

    def _imported_by_constant(expr: ast.expr) -> str:
        """``module = importlib.import_module("pkg.state")``: a local that holds one known module;
        ``this = sys.modules[__name__]``: the module itself."""
        resolved = scopes.resolve(expr.id, expr) if isinstance(expr, ast.Name) else None
        bindings = resolved[1] if resolved is not None else []
        value = bindings[0].node if len(bindings) == 1 and bindings[0].how == "value" and not bindings[0].path else None
        if _this_module(value if value is not None else expr, names):
            return context.name  # type: ignore[union-attr]
        if (
            isinstance(value, ast.Call) and names.qualify(value.func) == "importlib.import_module" and not value.keywords
            and len(value.args) == 1 and isinstance(value.args[0], ast.Constant) and isinstance(value.args[0].value, str)
            and not value.args[0].value.startswith(".")
        ):
            return value.args[0].value
        return ""

    lines = module.mentions.words(_BY_NAME_WORDS | set(_EVALUATORS) | names.spellings((*_MODULES_BY_NAME, *_ATTRIBUTES_BY_NAME, *_RUNS_A_FILE, *_EVALUATES_NAMES, *_REFERENTS, "operator.attrgetter")))
    for node in scopes.index_parts(tree, functools.partial(Mentions.within, lines)):
        if isinstance(node, (ast.Call, ast.Attribute)) and _finds_by_name(node, names, scopes):
            found.append((node.lineno, f"finds objects by name with `{ast.unparse(node)[:50]}`", _bound_to(node, scopes), _finds_only_classes(node, names)))
        if isinstance(node, (ast.Name, ast.Attribute)) and names.qualify(node) == "builtins.getattr":
            handed = _getattr_handed_on(node, scopes, names)
            if handed is not None:  # ``functools.partial(getattr, module, key.upper())``: called later, elsewhere
                receiver, name = handed
                how = f"hands `getattr` on with `{ast.unparse(scopes.parent(node))[:50]}`"
                if isinstance(name, ast.Constant) and isinstance(name.value, str):
                    blind.append((name.value, node.lineno, how))
                else:
                    attributes.append((target(receiver), node.lineno, how, (), _held_in(receiver, names, scopes), False))
        applied = scopes.parent(node) if isinstance(node, ast.Call) and names.qualify(node.func) == "operator.attrgetter" else None
        if isinstance(applied, ast.Call) and applied.func is node and applied.args and not all(isinstance(a, ast.Constant) for a in node.args):  # type: ignore[union-attr]
            receiver = applied.args[0]  # ``attrgetter(".".join(parts))(package)``: read now, from ``package``
            how = f"reads attributes by a computed dotted path with `{ast.unparse(applied)[:50]}`"
            attributes.append((target(receiver), node.lineno, how, (), _held_in(receiver, names, scopes), False))
        if isinstance(node, ast.Call) and names.qualify(node.func) in _RUNS_A_FILE and not isinstance(scopes.parent(node), ast.Expr):
            # ``ns = runpy.run_path(path)``: the globals of whatever file it ran, handed back as a dict
            how = f"runs a file with `{ast.unparse(node)[:50]}` and reads the namespace it returns"
            keys = _keys_read(node, scopes)
            if keys is None:
                attributes.append((_ANY_MODULE, node.lineno, how + " whole", (), "", True))
            blind.extend((key, node.lineno, f"{how} for `{key}`") for key in keys or ())
        evaluator = names.qualify(node.func) if isinstance(node, ast.Call) else None
        if (
            evaluator in _EVALUATES_NAMES and node.args  # type: ignore[union-attr]
            and not isinstance(node.args[0], ast.Constant) and not _evaluated_roots(node.args[0], scopes) <= _OWN_OBJECTS  # type: ignore[union-attr]
            and not _sandboxed(node)  # type: ignore[arg-type]
        ):
            how = f"evaluates a name it is given with `{ast.unparse(node)[:50]}`"
            if evaluator in _RESOLVES_NAMES:
                # a name handed in from anywhere (``register("freezer", __name__, "UNFROZEN" + "_AT")`` in the
                # container's own module): whatever this module spells, it may reach any global or attribute
                attributes.append((_ANY_NAME, node.lineno, how, (), "", True))
            else:  # code built here: it names what it reaches with what this module spells
                found.append((node.lineno, how, frozenset({"<direct>"}), False))
                attributes.append(("", node.lineno, how, (), "<direct>", False))
        if isinstance(node, ast.Call) and names.qualify(node.func) in _REFERENTS:
            attributes.append((_ANY_MODULE, node.lineno, f"reads what the collector finds whole with `{ast.unparse(node)[:50]}`", (), "", True))
        if isinstance(node, ast.Call) and names.qualify(node.func) == "builtins.globals" and not node.args:
            entry = scopes.parent(node)  # the module's own namespace, with every name a star import bound
            if isinstance(entry, ast.Subscript) and entry.value is node:
                if not isinstance(entry.slice, ast.Constant):
                    how = f"reads its own globals by name with `{ast.unparse(entry)[:50]}`"
                    attributes.append((context.name, node.lineno, how, _name_filters(entry.slice, entry, scopes), "", _swept_name(entry.slice, scopes, names)))
            elif not (isinstance(entry, ast.Attribute) and entry.attr in ("get", "keys", "__contains__")) and not (
                isinstance(entry, ast.Compare) and node in entry.comparators and all(isinstance(op, (ast.In, ast.NotIn)) for op in entry.ops)
            ):  # ``"name" in globals()``: a test of a name, no value read
                attributes.append((context.name, node.lineno, f"reads its own globals whole with `{ast.unparse(entry)[:50]}`", (), "", True))
        if isinstance(node, ast.Call):
            callee = names.qualify(node.func) or ""
            computed = len(node.args) < 2 or not isinstance(node.args[1], ast.Constant)
            if (
                callee == "builtins.getattr" and not computed and isinstance(node.args[1].value, str)  # type: ignore[attr-defined]
                and not target(node.args[0]) and not _held_in(node.args[0], names, scopes) and not _only_classes_or_modules(node, names)
            ):  # ``getattr(load(name), "CACHE")``: one attribute, of an object no name shows
                blind.append((node.args[1].value, node.lineno, f"reads `{node.args[1].value}` with `{ast.unparse(node)[:50]}` from an object it finds where the fix cannot see"))  # type: ignore[attr-defined]
            if callee in _ATTRIBUTES_BY_NAME and node.args and (computed or callee != "builtins.getattr") and not _only_classes_or_modules(node, names):
                receiver = node.args[0]
                if not (isinstance(receiver, ast.Name) and receiver.id in ("self", "cls")):
                    filters = _name_filters(node.args[1], node, scopes) if len(node.args) > 1 else ()
                    how = f"reads attributes by name with `{ast.unparse(node)[:50]}`"
                    sweep = callee != "builtins.getattr" or _swept_name(node.args[1], scopes, names)
                    attributes.append((target(receiver), node.lineno, how, filters, _held_in(receiver, names, scopes), sweep))
        elif isinstance(node, ast.Attribute) and node.attr in _NAMESPACES_BY_NO_NAME:  # ``sys._getframe(1).f_globals``
            key = _one_key(node, scopes)
            if key is None:
                attributes.append((_ANY_MODULE, node.lineno, f"reads a frame's module namespace whole as `{ast.unparse(node)[:50]}`", (), "", True))
            else:  # ``frame.f_globals.get("__name__")``: one name, by a constant
                blind.append((key, node.lineno, f"reads `{key}` from a frame's module namespace with `{ast.unparse(scopes.parent(node))[:50]}`"))
        elif isinstance(node, ast.Attribute) and node.attr == "__globals__":  # any function's module, by no name
            attributes.append((_ANY_MODULE, node.lineno, f"reads a function's module namespace whole as `{ast.unparse(node)[:50]}`", (), "", True))
        elif isinstance(node, ast.Attribute) and node.attr == "__dict__" and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
            entry = scopes.parent(node)
            if isinstance(entry, ast.Subscript) and entry.value is node:  # ``m.__dict__[name]``: one entry, as getattr reads it
                if not isinstance(entry.slice, ast.Constant):
                    how = f"reads attributes by name with `{ast.unparse(entry)[:50]}`"
                    filters = _name_filters(entry.slice, entry, scopes)
                    attributes.append((target(node.value), node.lineno, how, filters, _held_in(node.value, names, scopes), _swept_name(entry.slice, scopes, names)))
            else:
                how = f"reads an object's attributes whole as `{ast.unparse(node)[:50]}`"
                attributes.append((target(node.value), node.lineno, how, (), _held_in(node.value, names, scopes), True))
    return _ByName(tuple(found), tuple(attributes), tuple(blind))


_SWEEPS = frozenset({"builtins.dir", "builtins.vars", "inspect.getmembers", "inspect.getmembers_static"})


#: Where an evaluated name that starts with them leads: an attribute of the object at hand, no global.
_OWN_OBJECTS = frozenset({"self", "cls", "super"})


def _sandboxed(call: ast.Call) -> bool:
    """``eval(expr, {"__builtins__": {}}, namespace)``: globals given as a literal of constants without
    builtins, so the code can import nothing and reach no module; what it sees is in the locals it is handed
    (where a reference to the container would show)."""
    given = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "globals"), None)
    if not isinstance(given, ast.Dict):
        return False
    entries = dict(zip((k.value if isinstance(k, ast.Constant) else None for k in given.keys), given.values))
    builtins = entries.get("__builtins__")
    no_builtins = (isinstance(builtins, ast.Dict) and not builtins.keys) or (isinstance(builtins, ast.Constant) and builtins.value is None)
    return no_builtins and None not in entries and all(isinstance(value, (ast.Constant, ast.Dict)) for value in given.values)


def _evaluated_roots(expr: ast.expr, scopes: Scopes) -> set[str]:
    """The first names of the strings ``expr`` may be (``_evaluated_root``), through a local it is bound to
    (``func = "self.ccl_comm_op." + name``, or ``"super(B, self)." + name`` in the other branch)."""
    resolved = scopes.resolve(expr.id, expr) if isinstance(expr, ast.Name) else None
    if resolved is not None and resolved[0] is not scopes.module and all(b.how == "value" and not b.path for b in resolved[1]):
        return {_evaluated_root(binding.node) for binding in resolved[1]}
    return {_evaluated_root(expr)}


def _evaluated_root(expr: ast.expr) -> str:
    """The first name of a string built from a constant start (``"self.ccl_comm_op." + name``,
    ``f"super(B, self).{name}"``): ``self``; "" where the start is computed."""
    while isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        expr = expr.left
    start = expr.values[0] if isinstance(expr, ast.JoinedStr) and expr.values else expr
    if not (isinstance(start, ast.Constant) and isinstance(start.value, str)):
        return ""
    root = re.match(r"\s*([A-Za-z_]\w*)\s*[.(]", start.value)
    return root.group(1) if root else ""


def _constant_key(read: ast.expr, parent: Callable[[ast.AST], Optional[ast.AST]], methods: tuple[str, ...] = ("get",)) -> Optional[ast.Constant]:
    """The constant a dict is read by at ``read``: ``ns["X"]``, ``ns.get("X")`` (or another of ``methods``)."""
    user = parent(read)
    if isinstance(user, ast.Subscript) and user.value is read and isinstance(user.slice, ast.Constant):
        return user.slice
    call = parent(user) if isinstance(user, ast.Attribute) and user.attr in methods else None  # type: ignore[arg-type]
    if isinstance(call, ast.Call) and call.func is user and call.args and isinstance(call.args[0], ast.Constant):
        return call.args[0]
    return None


def _one_key(namespace: ast.expr, scopes: Scopes) -> Optional[str]:
    """The one name a namespace dict is read for in place (``ns["X"]``, ``ns.get("X")``, ``"X" in ns``), or None."""
    key = _constant_key(namespace, scopes.parent, ("get", "__contains__"))
    if key is not None:
        return str(key.value)
    user = scopes.parent(namespace)
    if isinstance(user, ast.Compare) and user.comparators[-1:] == [namespace] and isinstance(user.left, ast.Constant):
        return str(user.left.value) if all(isinstance(op, (ast.In, ast.NotIn)) for op in user.ops) else None
    return None


def _keys_read(namespace: ast.Call, scopes: Scopes) -> Optional[list[str]]:
    """The names read from the dict ``namespace`` returns, where each read names one by a constant
    (``ns["export"]``, ``ns.get("main")``, ``run_path(p)["main"]``, with ``ns`` bound once in its function);
    None where it may be read whole or handed on."""
    parent = scopes.parent(namespace)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        name = parent.targets[0].id
        function = next((scope for scope in scopes.chain(parent) if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module))), None)
        reads = [node for node in ast.walk(function) if isinstance(node, ast.Name) and node.id == name and node is not parent.targets[0]] if function else []
    else:
        reads = [namespace]
    keys = []
    for read in reads:
        key = _constant_key(read, scopes.parent)
        if key is None or not isinstance(key.value, str):
            return None
        keys.append(key.value)
    return keys


def _getattr_handed_on(node: ast.expr, scopes: Scopes, names: Names) -> Optional[tuple[ast.expr, Optional[ast.expr]]]:
    """``functools.partial(getattr, obj, name)``: ``getattr`` handed on with the object it will read (and the
    name, where bound), or None. What it finds is matched to the object, as a read in place would be."""
    parent = scopes.parent(node)
    if isinstance(parent, ast.Call) and names.qualify(parent.func) == "functools.partial" and parent.args[:1] == [node] and len(parent.args) > 1:
        return parent.args[1], (parent.args[2] if len(parent.args) > 2 else None)
    return None


def _swept_name(name: ast.expr, scopes: Scopes, names: Names) -> bool:
    """Whether ``name`` is a loop variable over every attribute of something: ``for n in dir(m)``,
    ``for n, v in vars(m).items()``, ``for n in m.__dict__``, ``m.__dir__()``, ``m.__all__`` (its public ones); or the parameter of a
    module's ``__getattr__`` (PEP 562), which holds whatever name any importer asks that module for: a lazy
    re-export reaches every attribute of what it finds."""
    if not isinstance(name, ast.Name):
        return False
    current = scopes.parent(name)
    while current is not None and not isinstance(current, ast.Module):
        if (
            isinstance(current, ast.FunctionDef) and current.name == "__getattr__" and isinstance(scopes.parent(current), ast.Module)
            and current.args.args[:1] and current.args.args[0].arg == name.id
        ):
            return True
        if isinstance(current, (ast.For, ast.comprehension)) and any(isinstance(n, ast.Name) and n.id == name.id for n in ast.walk(current.target)):
            return any(
                (isinstance(n, ast.Call) and (names.qualify(n.func) in _SWEEPS or (isinstance(n.func, ast.Attribute) and n.func.attr == "__dir__")))
                or (isinstance(n, ast.Attribute) and n.attr in ("__dict__", "__all__"))
                for n in ast.walk(current.iter)
            )
        current = scopes.parent(current)
    return False


def named_in_strings(scope: Path, files: dict[Path, str], modules: set[str], word: str) -> Optional[tuple[Path, int, str]]:
    """Where a string of the project names ``word`` as an attribute of one of ``modules`` (a configuration's
    ``"pkg.mod.NAME"`` or ``"pkg.mod:NAME"``, ``pkgutil.resolve_name``'s, ``operator.attrgetter``'s
    ``"mod.NAME"``), outside docstrings, ``__all__`` and text for people: the file, the line and the string."""
    spellings = [f"{module}{separator}{word}" for module in modules for separator in ".:"]
    for path in mentioning(scope, {word}):
        if not any(spelling in files[path] for spelling in spellings):
            continue
        for spelled, line in _strings(path, files[path]):
            if any(spelling in spelled for spelling in spellings):
                return path, line, spelled
    return None


@functools.lru_cache(maxsize=MAX_FILES)
def _strings(path: Path, text: str) -> tuple[tuple[str, int], ...]:
    """The module's string constants that may name code (``call_routes.string_constants``), with their lines."""
    tree = parsed(text)
    return tuple((node.value, node.lineno) for node in string_constants(tree)) if tree is not None else ()


def _this_module(expr: Optional[ast.AST], names: Names) -> bool:
    """``sys.modules[__name__]``, ``sys.modules.get(__name__)``: the module that runs it."""
    if isinstance(expr, ast.Subscript) and names.qualify(expr.value) == "sys.modules":
        key: Optional[ast.AST] = expr.slice
    elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "get" and expr.args:
        key = expr.args[0] if names.qualify(expr.func.value) == "sys.modules" else None
    else:
        return False
    return isinstance(key, ast.Name) and key.id == "__name__"


def _finds_by_name(node: ast.expr, names: Names, scopes: Scopes) -> bool:
    """``importlib.import_module(name)`` with a computed name, ``gc.get_objects()``,
    ``cls.__subclasses__()``, a class's ``__mro__`` or ``__bases__`` (``inspect.getmro(cls)``), or
    ``sys.modules`` other than one known module."""
    if isinstance(node, ast.Call):
        callee = names.qualify(node.func) or ""
        if callee in _MODULES_BY_NAME:
            return not (node.args and isinstance(node.args[0], ast.Constant))
        if callee in NAMESPACE_READS and _only_classes_or_modules(node, names):
            return True  # ``inspect.getmembers(module, inspect.isclass)``: the classes of a module, by no name
        return isinstance(node.func, ast.Attribute) and node.func.attr == "__subclasses__"
    if isinstance(node, ast.Attribute) and node.attr in _CLASSES_REACHED:
        return True
    return isinstance(node, ast.Attribute) and names.qualify(node) == "sys.modules" and not _one_module(scopes.parent(node), node)


def _finds_only_classes(node: ast.expr, names: Names) -> bool:
    """``cls.__subclasses__()``, ``type(x).__mro__``, ``inspect.getmro(cls)``, ``inspect.getmembers(m,
    inspect.isclass)``: what it finds are classes."""
    if isinstance(node, ast.Call):
        return (
            names.qualify(node.func) == "inspect.getmro" or (isinstance(node.func, ast.Attribute) and node.func.attr == "__subclasses__")
            or ((names.qualify(node.func) or "") in NAMESPACE_READS and _only_classes_or_modules(node, names))
        )
    return isinstance(node, ast.Attribute) and node.attr in _CLASSES_REACHED


_NAME_TESTS = frozenset({"startswith", "endswith"})
_CLASS_OR_MODULE_TESTS = frozenset({"inspect.isclass", "inspect.ismodule"})


def _only_classes_or_modules(call: ast.Call, names: Names) -> bool:
    """``inspect.getmembers(module, inspect.isclass)``: what it reads whole it filters to classes or
    modules, which no container is."""
    predicate = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "predicate"), None)
    return predicate is not None and names.qualify(predicate) in _CLASS_OR_MODULE_TESTS


def _name_filters(name: ast.expr, read: ast.AST, scopes: Scopes) -> tuple[tuple[str, str], ...]:
    """What the ``if`` statements around ``read`` ask of the variable ``name`` holds before the read:
    ``name.endswith("Builder")``, ``name.startswith("_")``, ``name == "x"`` (each conjunct of their tests,
    on the branch that reads)."""
    if not isinstance(name, ast.Name):
        return ()
    filters: list[tuple[str, str]] = []
    child, current = read, scopes.parent(read)
    while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        if isinstance(current, ast.If) and child in current.body:
            tests = current.test.values if isinstance(current.test, ast.BoolOp) and isinstance(current.test.op, ast.And) else [current.test]
            for test in tests:
                if (
                    isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr in _NAME_TESTS
                    and isinstance(test.func.value, ast.Name) and test.func.value.id == name.id
                    and len(test.args) == 1 and isinstance(test.args[0], ast.Constant) and isinstance(test.args[0].value, str)
                ):
                    filters.append((test.func.attr, test.args[0].value))
                elif (
                    isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == name.id
                    and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
                    and isinstance(test.comparators[0], ast.Constant) and isinstance(test.comparators[0].value, str)
                ):
                    filters.append(("==", test.comparators[0].value))
        child, current = current, scopes.parent(current)
    return tuple(filters)


def _passes(attribute: str, filters: tuple[tuple[str, str], ...]) -> bool:
    """Whether the name ``attribute`` passes every test the code makes before reading by name."""
    return all(attribute == value if test == "==" else getattr(attribute, test)(value) for test, value in filters)


def _one_module(parent: Optional[ast.AST], node: ast.Attribute) -> bool:
    """``sys.modules[__name__]``, ``sys.modules["pkg.x"]``: one known module, not the table walked.
    ``sys.modules[type(x).__module__]`` is any module that defines a class, the container's among them."""
    if not (isinstance(parent, ast.Subscript) and parent.value is node):
        return False
    key = parent.slice
    return isinstance(key, ast.Constant) or (isinstance(key, ast.Name) and key.id == "__name__")


def namespace_kept_by_a_runner(path: Path) -> Optional[str]:
    """Where a file of the project runs the script at ``path`` and reads the globals it leaves whole: those
    ``runpy`` returns (``ns = runpy.run_path(path)``; ``sorted(ns)``), or the namespace ``exec`` ran its text
    in (``exec(compile(source, path, "exec"), ns)``; ``ns.values()``). The script is imported by no name,
    yet its whole namespace is read, where the fix's names (and the container's type) are seen."""
    for caller, text, _ in loaders_by_path(path):
        tree = parsed(text)
        if tree is None:
            continue
        names = imported_names(tree)
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            callee = names.qualify(node.func)
            if callee in _RUNS_A_FILE:
                namespace: Optional[ast.expr] = node if not isinstance(parents.get(node), ast.Expr) else None
            elif callee == "builtins.exec" and len(node.args) > 1:
                namespace = node.args[1]
            else:
                continue
            if namespace is not None and _read_whole(namespace, parents):
                return (
                    f"`{shown_path(Path(caller))}` line {node.lineno} runs it with `{ast.unparse(node)[:50]}` and reads "
                    "the namespace it runs in, which it may read whole"
                )
    return None


def _read_whole(namespace: ast.expr, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether the namespace dict is read other than by constant keys, through the local it is bound to (or
    is a local's value) in its function."""
    if isinstance(namespace, ast.Call):
        statement = parents.get(namespace)
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)):
            return True
        namespace = statement.targets[0]
    if not isinstance(namespace, ast.Name):
        return True
    function = parents.get(namespace)
    while function is not None and not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        function = parents.get(function)
    for node in ast.walk(function) if function is not None else ():
        if isinstance(node, ast.Name) and node.id == namespace.id and isinstance(node.ctx, ast.Load):
            user = parents.get(node)
            handed_to_exec = isinstance(user, ast.Call) and user.args[1:2] == [node]
            if _constant_key(node, parents.get) is None and not handed_to_exec:
                return True
    return False
