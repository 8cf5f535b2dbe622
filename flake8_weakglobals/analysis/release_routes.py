"""Where an owner that the proof shows at a fill lets go of what it owns, by every route a module shows.

The owner proof (``owners.py``) names what keeps each object at the fill: a module global, a local of the
program's entry point, a parameter whose callers keep what they pass, ``self``. The owner, or a part of
it, can let go later: ``del model``, a layer stored over (``model.block = Block()``, ``model.layers[0] =
...``, ``setattr``), taken out (``model.experts.pop("a")``), or replaced by code that runs on it: a
function of the module it is handed to, a method of its class, a function handed to ``apply`` or
registered as a hook, a property's setter. Code the proof cannot read (a method no class here defines, a
callable from elsewhere) may let go of any part it is handed, and counts as a release. Each release
carries the path of the part it lets go (``("block", "attn")``), so that replacing ``self.hook`` is no
release of ``self.module``. ``letting_go.py`` asks whether the container is read after one.
"""
from __future__ import annotations

import ast
import dataclasses
import weakref
from dataclasses import dataclass
from typing import Iterator, Optional

from ..syntax.scopes import FUNCTIONS, Scopes, walk
from .evidence import text


#: Methods of a part that take objects out of it or put others in their place.
_RELEASING_METHODS = frozenset({
    "pop", "popitem", "clear", "remove", "__delitem__", "__setitem__", "update",
    "add_module", "register_module", "register_parameter", "register_buffer", "to_empty",
    "set_submodule", "delete_submodule", "delete_all_unused_submodules",
})


#: The releasing methods that take no argument (``pop()`` the last, ``clear()``, ``to_empty(device=...)``).
_WITHOUT_ARGUMENTS = frozenset({"pop", "popitem", "clear", "to_empty", "delete_all_unused_submodules"})


#: Methods of a module, a tensor or a container that keep every part an owner has (in-place tensor
#: methods, whose names end in ``_``, too). Any other method called on an owner or a part of it, which no
#: class of this module defines, runs code the proof cannot see, and may let go of a part.
_KEEPING_METHODS = frozenset({
    "forward", "eval", "train", "to", "cpu", "cuda", "float", "double", "half", "bfloat16", "type",
    "parameters", "named_parameters", "buffers", "named_buffers", "children", "named_children", "modules",
    "named_modules", "state_dict", "load_state_dict", "extra_repr", "get_submodule", "get_parameter", "get_buffer",
    "append", "extend", "insert", "add", "get", "items", "keys", "values", "index", "count", "copy",
    "size", "numel", "dim", "detach", "clone", "item", "tolist", "sum", "mean", "norm", "abs", "max", "min",
    "data_ptr", "element_size", "view", "reshape", "flatten", "t", "float", "numpy", "contiguous",
    "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
    "register_full_backward_pre_hook", "register_backward_hook", "register_hook", "apply",
})


#: Callables that read what they are handed (or copy it) and never store into it.
_READING_CALLABLES = frozenset({
    "print", "len", "id", "isinstance", "issubclass", "repr", "str", "type", "hasattr", "getattr", "sorted",
    "list", "tuple", "set", "frozenset", "dict", "sum", "min", "max", "enumerate", "zip", "iter", "next",
    "round", "float", "int", "bool", "any", "all", "format", "hash", "callable", "vars", "deepcopy", "copy",
    "save", "dumps", "dump", "compile", "script", "trace", "symbolic_trace", "export", "numel",
})


#: Methods of a dict, a set or a list, called with an owner or a part of it: they store or find it, and
#: call no code of its.
_CONTAINER_METHODS = frozenset({
    "get", "setdefault", "pop", "remove", "discard", "update", "issubset", "issuperset", "union",
    "intersection", "difference", "symmetric_difference", "isdisjoint", "fromkeys", "__contains__",
    "__getitem__", "__setitem__", "__delitem__", "join", "startswith", "endswith",
})


#: Hooks registered on a module run with that module as their first argument.
_HOOK_REGISTRARS = frozenset({
    "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
    "register_full_backward_pre_hook", "register_backward_hook",
})


#: Attributes whose store changes a tensor or a module in place, keeping the object itself.
_IN_PLACE_ATTRIBUTES = frozenset({"data", "grad", "requires_grad", "training"})


_DICT_TYPES = frozenset({"dict", "defaultdict", "OrderedDict", "WeakIdMap", "WeakKeyDictionary"})


@dataclass(frozen=True)
class Release:
    """A statement that makes an owner let go: ``del model`` or a part of it replaced."""

    line: int
    how: str
    scope: ast.AST  # the function, or the module, that runs it
    in_loop: Optional[ast.AST] = None  # the outermost loop around it in that scope
    path: tuple[Optional[str], ...] = ()  # the part let go, by attributes from the owner (None: a part no name says)
    #: For a call that hands the owner to a function that lets go (``drop(model)``): that function's own
    #: release, by which what the function reads before it is read before the release
    inside: Optional[Release] = None
    #: A module conversion (``model.double()``, ``model.to(torch.float64)``): torch puts new tensors in place
    #: of the module's buffers (its parameters it converts in place), so it lets go only of held tensors
    buffers: bool = False

    def reaches(self, held: tuple[Optional[str], ...]) -> bool:
        """Whether letting go of this part lets go of the part ``held`` (a path of the same kind): it is that
        part or one it is in. Replacing ``self.hook`` keeps ``self.module``; replacing ``model.layers[0]``
        may be any layer."""
        for mine, theirs in zip(self.path, held):
            if mine is None or theirs is None:
                return True
            if mine != theirs:
                return False
        return len(self.path) <= len(held)


def releases_of(scopes: Scopes, scope: ast.AST, name: str, parts: bool, _asked: frozenset = frozenset()) -> list[Release]:
    """Where ``name``, bound in ``scope`` (the module, or an entry point), lets go: deleted, or, when the
    container holds ``parts`` of it (``model.block``, its modules), a part stored over or taken out, here
    or by a function of this module that it, or a part of it, is handed to (``fold(model[1])``)."""
    found = _handed_to_a_releasing_function(scopes, scope, name, _asked | {(scope, name)}) if parts else []
    if parts:
        found += _released_through_aliases(scopes, scope, name, _asked | {(scope, name)})
    keyed = _bound_to_a_dict(scope, name)
    bounded = _bound_to_a_bounded_deque(scope, name)
    if parts:
        found += _run_by_setters(scopes, scope, name, _asked | {(scope, name)})
    for node in walk(scope):
        if isinstance(node, ast.Delete):
            for target in node.targets:
                root = _root(target)
                if root is not None and root.id == name and same_binding(scopes, root, scope) and (parts or target is root):
                    found.append(_release(scopes, node, f"`{text(node)}`", part_path(target)))
        elif not parts:
            continue
        elif _stored_targets(node):
            for target in _flattened(_stored_targets(node)):
                root = _root(target)
                if (
                    root is not None and target is not root and root.id == name and same_binding(scopes, root, scope)
                    and not (isinstance(target, ast.Attribute) and target.attr in _IN_PLACE_ATTRIBUTES)
                    and not (keyed and isinstance(target, ast.Subscript) and target.value is root)
                ):
                    where = node if hasattr(node, "lineno") else target  # a comprehension's clause has no line
                    found.append(_release(scopes, where, f"`{_store_text(node, target)}` puts another object in a part of `{name}`", part_path(target)))
        elif isinstance(node, ast.Call) and _runs_unread_code(node):
            found.append(_release(scopes, node, f"`{text(node)[:60]}` runs code the proof cannot read, where `{name}` is seen", (None,)))
        elif isinstance(node, ast.Call) and (converted := _converted(node)) is not None and (root := _root(converted)) is not None and root.id == name and same_binding(scopes, root, scope):
            how = f"`{text(node)[:60]}` converts `{text(converted)[:40]}`: torch puts new tensors in place of its buffers"
            found.append(_release(scopes, node, how, (*part_path(converted), None), buffers=True))
        elif isinstance(node, ast.Call):
            released = _releasing_call(node) or (_appended_to(node) if bounded else None)
            root = _root(released) if released is not None else None
            if root is not None and root.id == name and same_binding(scopes, root, scope):
                path = (*part_path(released), None)  # type: ignore[arg-type]
                found.append(_release(scopes, node, f"`{text(node)[:60]}` takes a part out of `{name}` or replaces it", path))
            else:
                found.extend(_unseen_code(scopes, scope, name, node, _asked | {(scope, name)}))
    return found


def _stored_targets(node: ast.AST) -> list[ast.expr]:
    """What a statement stores an object into: an assignment's targets (not of a value held by equality),
    a loop's or a comprehension's (``for model.head in heads:``), a ``with``'s (``with ctx as model.head:``)."""
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        if node.value is None or _by_value(node.value):
            return []
        return node.targets if isinstance(node, ast.Assign) else [node.target]
    if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        return [node.target]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [item.optional_vars for item in node.items if item.optional_vars is not None]
    return []


def _store_text(node: ast.AST, target: ast.expr) -> str:
    """The store as a message quotes it, on one line: the assignment, or the header of the loop or the
    ``with`` that stores into ``target``."""
    if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        return f"for {text(target)} in {text(node.iter)[:40]}"
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return f"with ... as {text(target)}"
    return text(node)[:60]


#: ``nn.Module`` conversions: each puts a new tensor in place of every buffer it changes (``_apply``).
_CONVERSIONS = frozenset({"to", "cuda", "cpu", "float", "double", "half", "bfloat16", "type", "xpu", "ipu", "mtia", "_apply"})


def _converted(call: ast.Call) -> Optional[ast.expr]:
    """What ``model.double()`` or ``model.to(torch.float64)`` converts: the receiver."""
    return call.func.value if isinstance(call.func, ast.Attribute) and call.func.attr in _CONVERSIONS else None


def _runs_unread_code(call: ast.Call) -> bool:
    """``exec(...)`` or ``eval(...)``: code in a string, which may store into any name it sees."""
    return isinstance(call.func, ast.Name) and call.func.id in ("exec", "eval") and bool(call.args)


def _run_by_setters(scopes: Scopes, scope: ast.AST, name: str, asked: frozenset) -> list[Release]:
    """A store over an attribute that a class of this module makes a property with a setter runs the
    setter, whatever is stored (``model.depth = 2`` may ``del self.blocks[2:]``)."""
    setters = definitions(scopes.module).setters
    found = []
    for node in walk(scope):
        if not isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            continue
        for target in _flattened(node.targets if isinstance(node, ast.Assign) else [node.target]):
            root = _root(target)
            if not (isinstance(target, ast.Attribute) and target.attr in setters and root is not None and root.id == name):
                continue
            for setter in setters[target.attr]:
                receiver = setter.args.args[0].arg if setter.args.args else None  # type: ignore[attr-defined]
                if receiver is None or (setter, receiver) in asked:
                    continue
                for inner in releases_of(scopes, setter, receiver, True, asked):
                    how = f"`{text(node)[:60]}` runs the setter of `{target.attr}` (line {inner.line}: {inner.how})"
                    found.append(_release(scopes, node, how, part_path(target.value) + inner.path, inner.buffers))
    return found


def _released_through_aliases(scopes: Scopes, scope: ast.AST, name: str, asked: frozenset) -> list[Release]:
    """Releases through another name for a part, bound in the same scope: ``blocks = getattr(model, "blocks")``
    then ``del blocks[1]``."""
    found = []
    for node in walk(scope):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            alias, value = node.targets[0].id, node.value
            root = _root(value)
            if alias != name and value is not root and root is not None and root.id == name and (scope, alias) not in asked:
                for inner in releases_of(scopes, scope, alias, True, asked):
                    found.append(dataclasses.replace(inner, how=f"{inner.how}, and `{alias}` is `{text(value)[:40]}`", path=part_path(value) + inner.path, inside=None))
    return found


def _bound_to_a_bounded_deque(scope: ast.AST, name: str) -> bool:
    """Whether ``name`` is bound in ``scope`` to ``deque(..., maxlen=N)``, whose appends push out the oldest."""
    body = getattr(scope, "body", [])
    for statement in body if isinstance(body, list) else []:
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in statement.targets):
            value = statement.value
            return isinstance(value, ast.Call) and any(k.arg == "maxlen" and not (isinstance(k.value, ast.Constant) and k.value.value is None) for k in value.keywords)
    return False


def _appended_to(call: ast.Call) -> Optional[ast.expr]:
    """The bounded deque an ``append``/``appendleft``/``extend`` pushes the oldest out of."""
    function = call.func
    return function.value if isinstance(function, ast.Attribute) and function.attr in ("append", "appendleft", "extend", "extendleft", "insert") else None


def _flattened(targets: list[ast.expr]) -> Iterator[ast.expr]:
    """The targets of an assignment, a tuple's elements each (``a.x, a.y = a.y, new``)."""
    for target in targets:
        if isinstance(target, (ast.Tuple, ast.List)):
            yield from _flattened(target.elts)
        else:
            yield target.value if isinstance(target, ast.Starred) else target


def _unseen_code(scopes: Scopes, scope: ast.AST, name: str, call: ast.Call, asked: frozenset) -> list[Release]:
    """A call that runs code with ``name`` or a part of it that the proof cannot read, or can read and
    that lets go of a part: a method not known to keep its parts (``trainer.reinit_head()``), a callable
    that is not this module's and not known only to read (``pool.submit(offload, model)``,
    ``partial(delattr, model, "head")``), a function handed to ``apply`` or registered as a hook."""
    function = call.func
    receiver = function.value if isinstance(function, ast.Attribute) else None
    root = _root(receiver) if receiver is not None else None
    if root is not None and root.id == name and same_binding(scopes, root, scope):
        path = part_path(receiver)  # type: ignore[arg-type]
        method = function.attr  # type: ignore[union-attr]
        if method in ("apply", *_HOOK_REGISTRARS) and call.args:
            return _run_by(scopes, scope, name, call, call.args[0], path + ((None,) if method == "apply" else ()), asked)
        if method == "load_state_dict" and any(k.arg is None or (k.arg == "assign" and not _false(k.value)) for k in call.keywords):
            return [_release(scopes, call, f"`{text(call)[:60]}` may put the loaded tensors in place of `{name}`'s", (*path, None))]
        if method.endswith("_") or method in _KEEPING_METHODS:
            return []
        defined = definitions(scopes.module).methods.get(method, [])
        inner = [r for m in defined if m.args.args and (m, m.args.args[0].arg) not in asked for r in releases_of(scopes, m, m.args.args[0].arg, True, asked)]
        if defined and not inner:
            return []
        how = f"line {inner[0].line}: {inner[0].how}" if inner else "code the proof cannot read"
        buffers = bool(inner) and all(release.buffers for release in inner)
        return [_release(scopes, call, f"`{text(call)[:60]}` runs {how}, which may let go of a part of `{name}`", (*path, *(inner[0].path if inner else (None,))), buffers)]
    callee = function.id if isinstance(function, ast.Name) else function.attr if isinstance(function, ast.Attribute) else ""
    if callee in _READING_CALLABLES or _module_function(scopes, function) is not None:
        return []  # a function of this module is read where it is handed the owner (``_handed_to_a_releasing_function``)
    if isinstance(function, ast.Attribute) and (callee in _KEEPING_METHODS or callee in _CONTAINER_METHODS):
        return []  # ``NAMES.get(model.fc)``, ``REGISTRY.append(model)``: a container's own method, which only holds it
    for argument in (*call.args, *(k.value for k in call.keywords)):
        argument = argument.value if isinstance(argument, ast.Starred) else argument
        root = _root(argument)
        if root is not None and root.id == name and same_binding(scopes, root, scope):
            how = f"`{text(call)[:60]}` hands `{text(argument)[:30]}` to code the proof cannot read, which may let go of a part of it"
            return [_release(scopes, call, how, (*part_path(argument), None))]
    return []


def _run_by(scopes: Scopes, scope: ast.AST, name: str, call: ast.Call, function: ast.expr, path: tuple, asked: frozenset) -> list[Release]:
    """The releases of a function that ``call`` (``model.apply(f)``, ``model.register_forward_pre_hook(f)``)
    runs with the module at ``path`` as its first argument; code it cannot read counts as one."""
    defined = _module_function(scopes, function)
    if defined is None and isinstance(function, ast.Lambda):
        defined = function
    if defined is None:
        return [_release(scopes, call, f"`{text(call)[:60]}` runs code the proof cannot read on `{name}`", (*path, None))]
    parameters = [a.arg for a in (*defined.args.posonlyargs, *defined.args.args)]  # type: ignore[attr-defined]
    if not parameters or (defined, parameters[0]) in asked:
        return []
    return [
        _release(scopes, call, f"`{text(call)[:60]}` runs code that lets go of a part of `{name}` (line {inner.line}: {inner.how})", path + inner.path, inner.buffers)
        for inner in releases_of(scopes, defined, parameters[0], True, asked)
    ]


def _module_function(scopes: Scopes, function: ast.expr) -> Optional[ast.AST]:
    """The function of this module (at its top level, or nested, if the name is defined once) that
    ``function`` names."""
    if not isinstance(function, ast.Name):
        return None
    found = definitions(scopes.module).functions.get(function.id, [])
    return found[0] if len(found) == 1 else None


@dataclass
class _Definitions:
    """The functions of a module by name (nested ones too), its classes' methods, and its names' references."""

    functions: dict[str, list[ast.AST]]
    methods: dict[str, list[ast.AST]]
    names: dict[str, list[ast.Name]]  # every reference by a plain name
    setters: dict[str, list[ast.AST]]  # property setters (``@depth.setter``) by the property's name


_DEFINED: "weakref.WeakKeyDictionary[ast.Module, _Definitions]" = weakref.WeakKeyDictionary()


def definitions(module: ast.Module) -> _Definitions:
    """One walk of the module per run: every release check asks it by name (kept as long as the tree is)."""
    found = _DEFINED.get(module)
    if found is None:
        found = _Definitions({}, {}, {}, {})
        for node in walk(module):
            if isinstance(node, ast.Name):
                found.names.setdefault(node.id, []).append(node)
            elif isinstance(node, FUNCTIONS):
                found.functions.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.ClassDef):
                for member in node.body:
                    if isinstance(member, FUNCTIONS):
                        found.methods.setdefault(member.name, []).append(member)
                        if any(isinstance(d, ast.Attribute) and d.attr == "setter" for d in member.decorator_list):
                            found.setters.setdefault(member.name, []).append(member)
        _DEFINED[module] = found
    return found


def _false(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and value.value is False


def _handed_to_a_releasing_function(scopes: Scopes, scope: ast.AST, name: str, asked: frozenset) -> list[Release]:
    """The calls in ``scope`` that hand ``name`` or a part of it to a module-level function of this module
    whose parameter lets go of a part (``def fold(stage): stage._modules["1"] = nn.Identity()``)."""
    functions = {node.name: node for node in scopes.module.body if isinstance(node, FUNCTIONS)}
    found = []
    for call in walk(scope):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in functions):
            continue
        callee = functions[call.func.id]
        for argument, parameter in _arguments_to_parameters(call, callee):
            root = _root(argument)
            if root is None or root.id != name or not same_binding(scopes, root, scope) or (callee, parameter) in asked:
                continue
            for inner in releases_of(scopes, callee, parameter, True, asked):
                how = f"`{text(call)[:60]}` lets go of a part of `{name}` (line {inner.line}: {inner.how})"
                found.append(dataclasses.replace(_release(scopes, call, how, part_path(argument) + inner.path, inner.buffers), inside=inner))
    return found


def _arguments_to_parameters(call: ast.Call, function: ast.AST) -> Iterator[tuple[ast.expr, str]]:
    """Each argument of ``call`` with the name of the parameter of ``function`` it binds."""
    positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]  # type: ignore[attr-defined]
    for argument, parameter in zip(call.args, positional):
        if not isinstance(argument, ast.Starred):
            yield argument, parameter
    for keyword in call.keywords:
        if keyword.arg is not None:
            yield keyword.value, keyword.arg


def _bound_to_a_dict(scope: ast.AST, name: str) -> bool:
    """Whether ``name`` is bound in ``scope`` to a dict display or a dict: a store under a key
    (``X[k] = v``) replaces a value and keeps every key, what a map keyed by objects owns."""
    body = getattr(scope, "body", [])
    for statement in body if isinstance(body, list) else []:  # a lambda's body is one expression
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                value = statement.value
                callee = value.func if isinstance(value, ast.Call) else None
                return isinstance(value, (ast.Dict, ast.DictComp)) or (
                    isinstance(callee, (ast.Name, ast.Attribute)) and text(callee).split(".")[-1] in _DICT_TYPES
                )
    return False


def part_path(expr: ast.expr) -> tuple[Optional[str], ...]:
    """The attributes from the root name to ``expr``: ``model.block.attn`` → ``("block", "attn")``; an item
    (``layers[0]``) is a part no name says (None)."""
    path: list[Optional[str]] = []
    while isinstance(expr, (ast.Attribute, ast.Subscript)) or _part_getter(expr) is not None:
        if isinstance(expr, (ast.Attribute, ast.Subscript)):
            path.append(expr.attr if isinstance(expr, ast.Attribute) else None)
            expr = expr.value
        else:
            path.append(None)
            expr = _part_getter(expr)  # type: ignore[assignment]
    return tuple(reversed(path))


def _release(scopes: Scopes, node: ast.AST, how: str, path: tuple[Optional[str], ...] = (), buffers: bool = False) -> Release:
    scope = scope_of(scopes, node)
    loop = None
    for ancestor in ancestors(scopes, node):
        if ancestor is scope:
            break
        if isinstance(ancestor, (ast.For, ast.AsyncFor, ast.While)):
            loop = ancestor
    return Release(node.lineno, how, scope, loop, path, buffers=buffers)  # type: ignore[attr-defined]


def _releasing_call(call: ast.Call) -> Optional[ast.expr]:
    """The part a call takes objects out of: ``model.layers.pop(0)`` → ``model.layers``,
    ``setattr(model, name, new)`` → ``model``."""
    function = call.func
    setter = function.id if isinstance(function, ast.Name) else None
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id == "object":
        setter = function.attr.strip("_")  # ``object.__setattr__(frozen, "teacher", None)``
    if setter in ("setattr", "delattr") and call.args:
        return call.args[0] if not (setter == "setattr" and len(call.args) == 3 and _by_value(call.args[2])) else None
    if isinstance(function, ast.Attribute) and function.attr in _RELEASING_METHODS and (call.args or function.attr in _WITHOUT_ARGUMENTS):
        return function.value  # ``handle.remove()`` takes no argument: it is no list's ``remove(x)``
    return None


def _root(expr: ast.expr) -> Optional[ast.Name]:
    while True:
        if isinstance(expr, (ast.Attribute, ast.Subscript)):
            expr = expr.value
        elif _part_getter(expr) is not None:
            expr = _part_getter(expr)  # type: ignore[assignment]
        else:
            return expr if isinstance(expr, ast.Name) else None


def _part_getter(expr: ast.expr) -> Optional[ast.expr]:
    """What a call that returns a part is called on: ``model.get_submodule("a.b")``, ``getattr(model, name)``."""
    if not isinstance(expr, ast.Call):
        return None
    if isinstance(expr.func, ast.Attribute) and expr.func.attr in ("get_submodule", "get_parameter", "get_buffer"):
        return expr.func.value
    if isinstance(expr.func, ast.Name) and expr.func.id == "getattr" and expr.args:
        return expr.args[0]
    return None


def same_binding(scopes: Scopes, name: ast.Name, scope: ast.AST) -> bool:
    resolved = scopes.resolve(name.id, name)
    return resolved is not None and resolved[0] is scope


def scope_of(scopes: Scopes, node: ast.AST) -> ast.AST:
    """The function or the module whose run executes ``node`` (a comprehension runs in its function)."""
    return next((scope for scope in scopes.chain(node) if isinstance(scope, (*FUNCTIONS, ast.Module))), scopes.module)


def ancestors(scopes: Scopes, node: ast.AST) -> Iterator[ast.AST]:
    current = scopes.parent(node)
    while current is not None:
        yield current
        current = scopes.parent(current)


def _by_value(value: ast.expr) -> bool:
    """A constant but ``None``, or a display of them: stored by value, no object replaced by another
    (``model.vision = None`` takes the module out)."""
    if isinstance(value, (ast.Tuple, ast.List)):
        return all(_by_value(element) for element in value.elts)
    return isinstance(value, ast.Constant) and value.value is not None
