"""Who owns each object a container would hold weakly: the proof a weak rewrite rests on.

A weak key, element or value is right only while something else keeps the object for as long as the
container is read. ``ownership.SoleOwner`` names the shapes known to leave the container the only owner;
this module turns the burden around and accepts a fill only where an owner is *shown*, one step at a time:

- a module global, a class attribute, or a local that its function reads again after the fill (the
  object is kept by that name);
- ``self``, or ``cls``, of the class whose method fills it (whoever made the instance keeps it);
- what an owned object hands out without making anything new: its attributes (``model.weight``), its
  items (``model[0]``), its modules and parameters (``for m in model.modules()``, ``model.apply(f)``),
  ``get_submodule``, ``getattr``;
- a parameter of a module-level function or of a method, where every call of it in this module passes
  something owned (calls in other modules are checked by the codemod, which sees them), or where nothing
  in the module calls it: then its callers keep what they pass, as a caller keeps the model it hands to
  an API. That holds only if calls are the one route to it: a function handed to a decorator, handed out
  as a value, or named by a string (``call_routes.py``) has callers nobody sees, and no owner shown;
- ``self`` where every instance is built by a call the proof sees and keeps: of the class, of a subclass
  here, or of a factory of the class (``cls(...)``, ``type(self)(...)``) whose callers keep what it
  returns. A class handed to a decorator or out as a value, and a copy that ``__setstate__`` registers,
  are built where nobody sees;
- the module a hook is registered on, for a module hook's first argument;
- objects held by equality (constants, strings, numbers): the runtime holds them as the dict did.

Anything else has no owner shown, and the fix is refused with it: a new object (``Phase(name)``, a
factory's result), an argument that torch builds for a hook call (its output, its gradient), a parameter
of a lambda or of a function made by a closure factory (whose callers are not known), a local that is
dropped when its function returns.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterable, Iterator, Optional

from ..index.project import ModuleContext
from ..index.summaries import MODULE_METHODS_RETURNING_SELF, defines_value_equality
from ..syntax.container_expressions import Member
from ..syntax.mentions import Mentions
from ..syntax.scopes import COMPREHENSIONS, FUNCTIONS, Binding, FunctionNode, Scopes, function_parameters, is_main_guard, walk
from .call_routes import handing_decorator, strings_naming
from .evidence import Evidence, argument_at, text
from .framework_types import ITERATION_METHODS, MODULE, MODULE_HOOK_REGISTRARS, Vocabulary
from .imported_kinds import Imported
from .release_routes import Release, part_path, releases_of
from .survey import ClassInfo, Survey, survey_module

_MAX_STEPS = 8
#: Methods of a module that keep the module or tensor they are given: ``model.add_module(name, Block())``.
_MODULE_KEEPING_METHODS = frozenset({"add_module", "register_module", "register_parameter", "register_buffer", "append", "extend", "insert"})
#: Containers whose constructor keeps what it is given: ``nn.Sequential(Block())`` owns the block.
_KEEPING_CONSTRUCTORS = frozenset({
    "torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict", "torch.nn.ParameterList", "torch.nn.ParameterDict",
    "builtins.list", "builtins.tuple", "builtins.dict",
})
#: Methods that return a part of their receiver, never a new object.
_PART_METHODS = frozenset({"get_submodule", "get_parameter", "get_buffer"})
_RETURNED = "returned to the caller"
#: Containers whose ``X[k] = obj`` keeps no ``obj``: storing one there shows no owner (a
#: ``WeakKeyDictionary``'s or ``WeakIdMap``'s values are held strongly, as a dict's).
_WEAK_CONTAINERS = frozenset({"weakref.WeakValueDictionary"})
_RUNTIME_WEAK_CONTAINERS = frozenset({"WeakValueMap", "WeakIdList"})
#: Methods that run on an instance ``copy`` or ``pickle`` makes, which no call of the class builds.
_COPY_PROTOCOL = frozenset({"__setstate__", "__copy__", "__deepcopy__", "__reduce__", "__reduce_ex__"})
#: Calls that name a class without handing it on: a type check, ``super(Block, self)``.
_CLASS_CHECKS = frozenset({"builtins.isinstance", "builtins.issubclass", "builtins.super"})
#: Builtins whose result is a number or a string: held by equality, as the dict held it.
_VALUE_BUILTINS = frozenset(f"builtins.{name}" for name in "str int float bool len repr format hash round abs".split())


@dataclass(frozen=True)
class Premise:
    """What a proof takes on trust from this module's callers in other modules, which the codemod checks
    there: the argument at ``position`` of each call of ``callee`` (``register``, ``Registry.add``) has an
    owner; or, with no position, that no call of ``callee`` (a class, a function returning what it
    registered) drops what it makes."""

    callee: str
    position: Optional[int]
    parameter: str = ""
    builds: bool = False  # ``callee`` is a class: a string naming it is a label unless it is an import path


@dataclass(frozen=True)
class Owner:
    """What keeps an object alive, in words; ``shown`` is False when nothing is shown to. ``premises``:
    what the codemod must still check in the other modules of the project."""

    shown: bool
    why: str
    premises: tuple[Premise, ...] = ()
    #: where an owner shown lets go later in this module (``del model``, a part of it replaced)
    releases: tuple[Release, ...] = ()


def _reaches_an_owner(binding: Binding) -> bool:
    """Whether a function's name refers to an object that an owner outside the function keeps: a
    parameter, a loop's element, an alias of a name or a part (not a call's result, which may be new)."""
    return binding.how in ("parameter", "element") or (
        binding.how == "value" and not binding.path and isinstance(binding.node, (ast.Name, ast.Attribute, ast.Subscript))
    )


def _missing(why: str) -> Owner:
    return Owner(False, why)


class Owners:
    """Shows, for one module, who owns what its containers would hold weakly."""

    def __init__(self, survey: Survey, evidence: Evidence) -> None:
        self.survey = survey
        self.evidence = evidence
        self.scopes = evidence.scopes
        self._asking: set[tuple[ast.AST, str]] = set()  # parameters being shown: a recursive call passes them on
        self._premises: list[Premise] = []  # gathered while one fill's owner is shown
        self._releases: list[Release] = []  # likewise: where an owner shown lets go
        self._path: list[Optional[str]] = []  # while the owner of a part is shown: its attribute, or None for one unnamed
        self._released: dict[tuple[ast.AST, str, bool], list[Release]] = {}
        self._container = ""  # the module global being filled: what is taken from it was owned when put there
        self._buffers = False  # whether what is held may be a module's buffers, which its conversions replace
        self._globals: Optional[frozenset[str]] = None

    def of_member(self, member: Member, line: int, container: str = "", parts: bool = False, buffers: bool = True) -> Owner:
        """The owner of what one fill stores weakly: the object, or each thing an iterable it is extended
        with yields (``X.extend(model.parameters())``, ``X.update(other)``: the other container's), with
        the premises the proof leaves to the codemod. With ``parts``, what is held may be any part of it
        (an argument whose callee, in another module, keeps the modules of what it is given). Unless
        ``buffers`` is false (it holds modules or parameters only), what is held may be a module's buffers,
        which a conversion of the module replaces (``model.double()``)."""
        self._premises, self._releases, self._container, self._buffers = [], [], container, buffers
        self._path = [None] if parts else []
        owner = self._of_member(member, line)
        return Owner(owner.shown, owner.why, tuple(dict.fromkeys(self._premises)), tuple(dict.fromkeys(self._releases)))

    def _of_member(self, member: Member, line: int) -> Owner:
        expr = member.expr
        if isinstance(expr, ast.Slice) and member.value is not None:  # ``X[1:-1] = other``: other's elements
            return self._elements(member.value, line, 0)
        if member.shape == "item":
            return self.of(expr, line)
        if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
            elements = [_key_of_pair(element) if member.shape == "update" else element for element in expr.elts]
            owners = [self.of(element, line) for element in elements]
            return next((owner for owner in owners if not owner.shown), Owner(True, "; ".join(dict.fromkeys(o.why for o in owners))))
        if isinstance(expr, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return self.of(_key_of_pair(expr.elt) if member.shape == "update" else expr.elt, line)
        if isinstance(expr, ast.DictComp):
            return self.of(expr.key, line)
        return self._elements(expr, line, 0)

    def of(self, expr: ast.expr, line: int, steps: int = 0) -> Owner:
        """The owner of what ``expr`` evaluates to at a fill on ``line``."""
        if steps > _MAX_STEPS:
            return _missing(f"`{text(expr)}` is too many steps from an owner to show one")
        if _by_equality(expr, self.survey) or self._built_equal_by_value(expr):
            return Owner(True, "held by equality, as the dict held it")
        if isinstance(expr, ast.Tuple):
            owners = [self.of(element, line, steps + 1) for element in expr.elts]
            return next((owner for owner in owners if not owner.shown), Owner(True, "; ".join(o.why for o in owners)))
        if isinstance(expr, ast.Name):
            return self._of_name(expr, line, steps)
        if isinstance(expr, ast.Attribute):
            rebinder = self._rebinding_method(expr)
            if rebinder is not None:
                return _missing(f"`{text(expr)}` is rebound by `{rebinder}`, so each object it held loses that owner while the container is read")
            return self._part_of(expr.value, f"an attribute of `{text(expr.value)}`", line, steps, expr.attr)
        if isinstance(expr, ast.Subscript):
            return self._part_of(expr.value, f"an item of `{text(expr.value)}`", line, steps)
        if isinstance(expr, ast.Call):
            return self._of_call(expr, line, steps)
        if isinstance(expr, ast.NamedExpr):
            return self.of(expr.value, line, steps + 1)
        return _missing(f"`{text(expr)}` makes a new object, which nothing but the container is shown to keep")

    def _built_equal_by_value(self, expr: ast.expr) -> bool:
        """``Spec("linear", 4)`` of a class that compares by value (its own ``__eq__``/``__hash__``, in this
        module or imported): the runtime holds it strongly, by equality, as the dict did."""
        if not isinstance(expr, ast.Call):
            return False
        local = self.survey.classes.get(expr.func.id) if isinstance(expr.func, ast.Name) else None
        if local is not None:
            lineage = list(self.survey.lineage(local))
            by_value = any(defines_value_equality(ancestor.node, self.survey.names.qualify) for ancestor in lineage)
            return by_value or all(_slots_without_weakref(ancestor.node) for ancestor in lineage)
        qualified = self.survey.names.qualify(expr.func)
        return qualified is not None and self.survey.imported.compares_by_value(qualified)

    def _part_of(self, whole: ast.expr, what: str, line: int, steps: int, attribute: Optional[str] = None) -> Owner:
        owner = self._of_whole(whole, line, steps + 1, attribute)
        return Owner(True, f"{what}, {owner.why}") if owner.shown else owner

    def _of_whole(self, whole: ast.expr, line: int, steps: int, attribute: Optional[str] = None) -> Owner:
        """The owner of ``whole``, of which a part is held (its ``attribute``, or a part no name says): what
        replaces that part lets go of it too."""
        self._path.append(attribute)
        try:
            return self.of(whole, line, steps)
        finally:
            self._path.pop()

    def _note_releases(self, scope: ast.AST, name: str, below: tuple[Optional[str], ...] = ()) -> None:
        """Where ``name``, an owner shown in ``scope``, lets go of what it owns (``releases_of``): of the
        part held (``self.module``, by the path of parts that led here), or of one it is in, not of
        another part (``self.hook.remove()``). ``below`` is where the held part is under ``name``'s."""
        key = (scope, name, bool(self._path) or bool(below))
        if key not in self._released:
            self._released[key] = releases_of(self.scopes, *key)
        held = below + tuple(reversed(self._path))
        self._releases.extend(release for release in self._released[key] if release.reaches(held) and (self._buffers or not release.buffers))

    def _of_call(self, call: ast.Call, line: int, steps: int) -> Owner:
        function = call.func
        callee = self.survey.names.qualify(function) or ""
        if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id == self._container:
            return self.of(function.value, line, steps + 1)  # ``X.pop()`` put back: owned as it was when put there
        if isinstance(function, ast.Attribute) and function.attr in _PART_METHODS:
            return self._part_of(function.value, f"a part of `{text(function.value)}`", line, steps)
        if callee == "builtins.getattr" and call.args:
            return self._part_of(call.args[0], f"an attribute of `{text(call.args[0])}`", line, steps)
        if callee in ("builtins.next", "builtins.iter") and len(call.args) == 1:
            return self._elements(call.args[0], line, steps + 1)
        if isinstance(function, ast.Attribute) and function.attr in ITERATION_METHODS:
            return self._part_of(function.value, f"each of `{text(call)}`", line, steps)
        getter = self._module_function(function)
        if getter is not None:
            returned = [node.value for node in walk(getter) if isinstance(node, ast.Return) and node.value is not None]
            owners = [self.of(value, node_line, steps + 1) for value in returned if (node_line := value.lineno)]
            if owners and all(owner.shown for owner in owners):
                return Owner(True, f"what `{text(call)}` returns, " + "; ".join(dict.fromkeys(owner.why for owner in owners)))
        return _missing(f"`{text(call)}` makes a new object, which nothing but the container is shown to keep")

    def _module_function(self, function: ast.expr) -> Optional[FunctionNode]:
        """The module-level function of this module that ``function`` names, if it does."""
        if not isinstance(function, ast.Name):
            return None
        resolved = self.scopes.resolve(function.id, function)
        found = self.survey.functions.get(function.id)
        return found if resolved is not None and isinstance(resolved[0], ast.Module) and len(resolved[1]) == 1 else None  # type: ignore[return-value]

    def _of_name(self, name: ast.Name, line: int, steps: int) -> Owner:
        resolved = self.scopes.resolve(name.id, name)
        if resolved is None:
            return _missing(f"`{name.id}` is bound nowhere this module shows")
        scope, bindings = resolved
        if isinstance(scope, ast.Module) and name.id == self._container:
            return Owner(True, f"taken from `{name.id}` itself, so owned as it was when put there")
        if isinstance(scope, ast.Module):
            return self._of_global(name.id, bindings, line, steps)
        if isinstance(scope, ast.ClassDef):
            return Owner(True, f"the class attribute `{scope.name}.{name.id}`")
        if all(_reaches_an_owner(binding) for binding in bindings):
            self._note_releases(scope, name.id)  # a helper's name for the owner, or a part of it, lets go too
        owners = [self._of_binding(name, scope, binding, line, steps) for binding in bindings]
        missing = next((owner for owner in owners if not owner.shown), None)
        if missing is not None:
            return missing
        return Owner(True, "; ".join(dict.fromkeys(owner.why for owner in owners)))

    def _of_binding(self, name: ast.Name, scope: ast.AST, binding: Binding, line: int, steps: int) -> Owner:
        if binding.how == "parameter":
            return self._of_parameter(scope, name.id, line, steps)
        if binding.how == "element":
            iterated = self._unwrapped(binding.node, binding.path)  # type: ignore[arg-type]
            if iterated is None:
                return _missing(f"`{name.id}` is unpacked from `{text(binding.node)}` in a way the fix cannot follow")  # type: ignore[arg-type]
            return self._elements(iterated, line, steps + 1)
        if binding.how == "value" and not binding.path and isinstance(binding.node, (ast.Name, ast.Attribute, ast.Subscript)):
            return self.of(binding.node, line, steps + 1)
        if binding.how == "value" and not binding.path and isinstance(binding.node, ast.Call):
            parted = self._of_call(binding.node, line, steps + 1)
            if parted.shown:
                return parted
        if isinstance(scope, FUNCTIONS) and binding.how in ("value", "annotated") and self._entry_point(scope):
            rebound = self._rebound(scope, name.id)
            if rebound is not None:
                return _missing(f"`{name.id}` is a local of `{scope.name}` that {rebound}, so an earlier object loses its owner while the container is read")
            self._note_releases(scope, name.id)
            return Owner(True, f"the local `{name.id}` of `{scope.name}`, the program's entry point, run once, whose locals live until it ends")
        if isinstance(scope, FUNCTIONS) and binding.how == "value":
            kept = self._handed_on(scope, name.id)
            again = self._bound_again(scope, name.id) if kept is not None else None
            if again is not None:
                return _missing(f"`{name.id}` is a local of `{scope.name}` that {again}, and `{scope.name}` {kept}: only the last object it held")
            if kept is not None:
                return Owner(True, f"the local `{name.id}`, which `{scope.name}` {kept}")
        where = f"`{scope.name}`" if isinstance(scope, FUNCTIONS) else "its scope"
        return _missing(f"`{name.id}` is a local of {where} that holds a new object, and nothing is shown to keep it once {where} returns")

    def _elements(self, iterable: ast.expr, line: int, steps: int) -> Owner:
        """The owner of each element of ``iterable``: of what a comprehension or a display yields
        (``[m for m in model.modules() if ...]``), of the elements of a local bound to one or of a slice of
        one, or else of ``iterable`` itself (the elements of a container or a model it owns)."""
        if steps > _MAX_STEPS:
            return _missing(f"`{text(iterable)}` is too many steps from an owner to show one")
        if isinstance(iterable, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return self.of(iterable.elt, line, steps + 1)
        if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)):
            owners = [self.of(element, line, steps + 1) for element in iterable.elts]
            return next((owner for owner in owners if not owner.shown), Owner(True, "; ".join(dict.fromkeys(o.why for o in owners)) or "nothing"))
        if isinstance(iterable, ast.Subscript) and isinstance(iterable.slice, ast.Slice):
            return self._elements(iterable.value, line, steps + 1)
        if isinstance(iterable, ast.BinOp) and isinstance(iterable.op, (ast.Add, ast.Mult)):
            # ``a + b[:1]``, ``a * 2``: a new list of the operands' own elements (a count's "elements" are
            # held by equality), so each operand must show its elements' owner
            owners = [self._elements(side, line, steps + 1) for side in (iterable.left, iterable.right)]
            return next((owner for owner in owners if not owner.shown), Owner(True, "; ".join(dict.fromkeys(o.why for o in owners))))
        if isinstance(iterable, ast.Name):
            resolved = self.scopes.resolve(iterable.id, iterable)
            bindings = resolved[1] if resolved is not None and isinstance(resolved[0], (ast.Module, *FUNCTIONS, *COMPREHENSIONS)) else []
            if len(bindings) == 1 and bindings[0].how == "value" and not bindings[0].path:
                value = bindings[0].node
                if isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.List, ast.Tuple, ast.Set, ast.Subscript)):
                    elements = self._elements(value, line, steps + 1)  # type: ignore[arg-type]
                    holds = not isinstance(value, ast.GeneratorExp)  # a generator makes each element as it is asked
                    held = self.of(iterable, line, steps + 1) if not elements.shown and holds else elements  # the list holds them
                    return held if held.shown else elements
        owner = self._of_whole(iterable, line, steps + 1)
        if owner.shown and not isinstance(iterable, ast.Call):
            return Owner(True, f"an element of `{text(iterable)}`, {owner.why}")
        return owner

    def _unwrapped(self, iterated: ast.expr, path: tuple[int, ...]) -> Optional[ast.expr]:
        """What a loop target at ``path`` is an element of: ``x`` of ``for i, x in enumerate(X)`` is an
        element of ``X``, ``y`` of ``for x, y in zip(X, Y)`` one of ``Y``; a copy in another order
        (``sorted(X)``, ``list(X)``, ``reversed(X)``) holds the same elements."""
        while isinstance(iterated, ast.Call) and len(iterated.args) >= 1:
            callee = self.survey.names.qualify(iterated.func) or ""
            if callee == "builtins.enumerate" and path[:1] == (1,):
                iterated, path = iterated.args[0], path[1:]
            elif callee == "builtins.zip" and path[:1] and path[0] < len(iterated.args):
                iterated, path = iterated.args[path[0]], path[1:]
            elif callee in ("builtins.sorted", "builtins.list", "builtins.tuple", "builtins.reversed") and len(iterated.args) == 1:
                iterated = iterated.args[0]
            else:
                break
        if path and not (isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Attribute) and iterated.func.attr in ITERATION_METHODS):
            return None  # ``for name, module in named_modules()``: the call's pairs are understood; others are not
        return iterated

    def _handed_on(self, function: FunctionNode, name: str) -> Optional[str]:
        """How ``function`` keeps its local ``name`` beyond its own run: it returns it to its caller
        (``return layer``), or stores it on an object or in a global (``self.layer = layer``)."""
        owner_class = self.survey.method_owner.get(function)
        for node in walk(function):
            if isinstance(node, ast.Return) and name in _returned_names(node, function):
                if owner_class is not None and function.name == "__new__":  # its callers build the class
                    built = [(info, call) for info in self._builders(owner_class) for call in self.evidence.calls_of(info.name)]
                    if any(not self.kept_where_built(call).shown for _, call in built):
                        return None
                    self._premises.extend(Premise(info.name, None, builds=True) for info in self._builders(owner_class))
                    return f"returns to the code that builds a `{owner_class.name}`, which every call in this module keeps"
                if owner_class is not None and _is_dunder(function.name):
                    return None  # returned to ``copy``, ``pickle`` or an operator: whoever gets it is not known
                method = owner_class is not None
                dropped = next((c for c in self.evidence.calls_of(function.name, method=method) if isinstance(self.scopes.parent(c), ast.Expr)), None)
                if dropped is not None:
                    return None  # ``BUILDER.build_named("gelu")`` at line N: the caller drops what it gets
                self._premises.append(Premise(self._callee(function), None))
                self._note_releases_where_kept(self.evidence.calls_of(function.name, method=method))
                return f"returns to its caller at line {node.lineno}, where every call in this module keeps it"
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id == name:
                stored = next((t for t in node.targets if isinstance(t, (ast.Attribute, ast.Subscript))), None)
                if isinstance(stored, ast.Attribute) and function.name != "__init__" and self._rebinding_method(stored) is not None:
                    continue  # ``self.last = x`` in a method run again and again: the next call replaces it
                if stored is not None and not self._weakly_held(stored):
                    self._note_releases_of_global(stored)
                    return f"stores as `{text(stored)}` at line {node.lineno}"
        return None

    def _note_releases_where_kept(self, calls: Iterable[ast.Call]) -> None:
        """Where the names that calls' results are bound to let go (``model = build()`` ... ``model.to_empty()``)."""
        for call in calls:
            parent = self.scopes.parent(call)
            if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
                resolved = self.scopes.resolve(parent.targets[0].id, parent.targets[0])
                if resolved is not None:
                    self._note_releases(resolved[0], parent.targets[0].id)

    def _note_releases_of_global(self, stored: ast.expr) -> None:
        """Where the module global a local is stored in (``_LOADED[name] = model``) lets go of that part."""
        root = stored
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        resolved = self.scopes.resolve(root.id, root) if isinstance(root, ast.Name) else None
        if resolved is not None and isinstance(resolved[0], ast.Module):
            self._note_releases(self.scopes.module, root.id, part_path(stored))  # type: ignore[union-attr]

    def _callee(self, function: FunctionNode) -> str:
        """How other modules name ``function``: ``register``, or ``Registry.add`` for a method."""
        owner = self.survey.method_owner.get(function)
        if owner is not None and function.name == "__init__":
            return owner.name  # built by calling the class
        return f"{owner.name}.{function.name}" if owner is not None else function.name

    def _entry_point(self, function: FunctionNode) -> bool:
        """A function whose locals live as long as the program does: ``main``, or one the module's
        ``if __name__ == "__main__":`` block calls. A local of any other function is gone once it returns,
        while the container is still read (a helper that builds a model, hooks it and returns)."""
        if self.scopes.parent(function) is not self.scopes.module:
            return False
        if function.name == "main":
            return True
        return any(
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == function.name
            for statement in self.scopes.module.body if is_main_guard(statement)
            for node in walk(statement)
        )

    def _of_parameter(self, function: ast.AST, name: str, line: int, steps: int) -> Owner:
        if isinstance(function, COMPREHENSIONS):
            return _missing(f"`{name}` is bound by a comprehension the fix cannot follow")
        position = [parameter.arg for parameter in function_parameters(function)].index(name)  # type: ignore[arg-type]
        owner_class = self.survey.method_owner.get(function)
        bound = owner_class is not None and function not in self.survey.unbound_methods
        if owner_class is not None and position == 0 and (bound or function in self.survey.class_methods):
            return self._of_self(owner_class, function, name)  # type: ignore[arg-type]
        hook = self.evidence.hooks.get(function)
        if hook is not None and hook.registrar.startswith("register_module_"):
            return _missing(
                f"`{name}` is an argument of a global hook registered with `{hook.registrar}` at line {hook.line}, which "
                "is called for every module, those nothing keeps included"
            )
        if hook is not None:
            receiver = hook.call.func.value if isinstance(hook.call.func, ast.Attribute) else None
            if hook.registrar in MODULE_HOOK_REGISTRARS and position == hook.position and receiver is not None:
                owner = self.of(receiver, line, steps + 1)  # the module it is registered on, no part of it
                return Owner(True, f"the module that the hook registered at line {hook.line} is called for, {owner.why}") if owner.shown else owner
            return _missing(
                f"`{name}` is an argument that each call of the hook registered with `{hook.registrar}` at line {hook.line} "
                "passes it, which nothing is shown to keep once the call returns"
            )
        if isinstance(function, ast.Lambda) or not self._named_in_module(function):
            return _missing(f"`{name}` is a parameter of a lambda or a nested function, whose callers the fix cannot see")
        if (function, name) in self._asking:
            return Owner(True, f"`{name}`, passed on by `{function.name}` to itself")  # type: ignore[union-attr]
        self._asking.add((function, name))
        try:
            return self._passed(function, name, position - (1 if bound else 0), line, steps)  # type: ignore[arg-type]
        finally:
            self._asking.discard((function, name))

    def _named_in_module(self, function: ast.AST) -> bool:
        """A module-level function, or a method of one of this module's classes."""
        return isinstance(function, FUNCTIONS) and (self.scopes.parent(function) is self.scopes.module or function in self.survey.method_owner)

    def _of_self(self, owner_class: ClassInfo, method: FunctionNode, name: str) -> Owner:
        """``self``: kept by whoever made the instance, where this module shows each instance it makes kept
        (``kept_where_built``): by calling the class or a subclass, or by the class's own factories
        (``cls(...)``, ``type(self)(...)``) and their callers. Other modules' constructions are the codemod's
        to check. Instances made by a route no call names (``copy``, ``pickle``, a decorator or a table
        the class is handed to, a string naming it) have no owner shown."""
        class_name = owner_class.name
        if method.name in _COPY_PROTOCOL:
            return _missing(f"`{name}` in `{class_name}.{method.name}` is an instance that `copy` or `pickle` makes, which no call the fix can see keeps")
        route = self._class_route(owner_class)
        if route is not None:
            return _missing(f"`{name}` is an instance of `{class_name}`, which {route}, so who builds it and keeps it is not known")
        for builder in self._builders(owner_class):
            for call in self.evidence.calls_of(builder.name):
                kept = self.kept_where_built(call)
                if not kept.shown:
                    return _missing(f"`{name}` is an instance of `{class_name}` that line {call.lineno} builds: {kept.why}")
            self._note_releases_where_kept(self.evidence.calls_of(builder.name))  # ``model.heads.pop("a")``
            self._premises.append(Premise(builder.name, None, builds=True))
        for factory, call in self._factories(owner_class):
            method_name = factory.rpartition(".")[2]
            if _is_dunder(method_name) and method_name not in ("__init__", "__new__"):
                return _missing(f"`{name}` is an instance of `{class_name}` that `{factory}` builds at line {call.lineno} for Python itself (`copy`, `pickle`, an operator), whose callers the fix cannot see")
            kept = self.kept_where_built(call)
            if not kept.shown:
                return _missing(f"`{name}` is an instance of `{class_name}` that `{factory}` builds at line {call.lineno}: {kept.why}")
            if kept.why != _RETURNED:
                continue
            for made in self.evidence.calls_of(method_name, method=True):
                kept = self.kept_where_built(made)
                if not kept.shown:
                    return _missing(f"`{name}` is an instance of `{class_name}` that `{factory}`, called at line {made.lineno}, returns: {kept.why}")
            self._premises.append(Premise(factory, None))
        self._note_releases_of_self(owner_class)
        return Owner(True, f"`{name}`, kept by whoever builds the `{class_name}`")

    def _note_releases_of_self(self, owner_class: ClassInfo) -> None:
        """Where a method of the class lets go of a part of its instance (``del self.encoder``,
        ``self.head = nn.Linear(...)``). ``__init__`` is left out: what it stores over is what it built a
        moment before, while no container holds the instance's parts yet."""
        for info in self.survey.lineage(owner_class):
            for method in info.methods.values():
                parameters = function_parameters(method)
                if method.name != "__init__" and parameters and method not in self.survey.unbound_methods and method not in self.survey.class_methods:
                    self._note_releases(method, parameters[0].arg)

    def _builders(self, owner_class: ClassInfo) -> list[ClassInfo]:
        """The class and this module's subclasses of it: a call of any of them builds an instance."""
        return [info for info in self.survey.classes.values() if owner_class.name in {a.name for a in self.survey.lineage(info)}]

    def _factories(self, owner_class: ClassInfo) -> Iterator[tuple[str, ast.Call]]:
        """The calls in the methods of the class and of its local bases that build an instance of whatever
        class they run for: ``cls(...)`` in a class method, ``type(self)(...)``, ``self.__class__(...)``;
        each with ``Class.method`` that makes it."""
        for info in self.survey.lineage(owner_class):
            for method in info.methods.values():
                parameters = function_parameters(method)
                receiver = parameters[0].arg if parameters and method in self.survey.class_methods else None
                for node in walk(method):
                    if isinstance(node, ast.Call) and _builds_own_class(node.func, receiver, self.survey):
                        yield f"{info.name}.{method.name}", node

    def _class_route(self, owner_class: ClassInfo) -> Optional[str]:
        """How this module hands the class (or a class it derives from) to code that may build it by a
        route no call names: a decorator, a string naming it, or the class passed or stored as a value
        (``MODELS = {"gpt": GPT}``, ``build(GPT)``)."""
        for info in self.survey.lineage(owner_class):
            decorator = handing_decorator(info.node, self.survey.names)
            if decorator is not None:
                return f"is handed to `@{text(decorator)}` (line {decorator.lineno})"
            simple = info.name.rpartition(".")[2]
            named = strings_naming(self.scopes.module, paths_only=True).get(simple)  # ``"Block"`` alone is a label
            if named is not None:
                return f"is named by an import path at line {named}, by which it can be looked up and built"
            for mention in self.evidence.mentions_of(simple):
                if self._class_handed_out(mention):
                    return f"is handed on as a value at line {mention.lineno}"
        return None

    def _class_handed_out(self, node: ast.expr) -> bool:
        """``node``, a class's name, is a value code can call later: an argument (not of a type check), an
        element of a display, a dict's value, or what is bound, returned or yielded."""
        parent = self.scopes.parent(node)
        while isinstance(parent, (ast.Tuple, ast.List, ast.Set, ast.Starred)):
            node, parent = parent, self.scopes.parent(parent)
        if isinstance(parent, ast.Call):
            return parent.func is not node and (self.survey.names.qualify(parent.func) or "") not in _CLASS_CHECKS
        if isinstance(parent, ast.keyword):
            return True
        if isinstance(parent, ast.Dict):
            return node in parent.values
        if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.NamedExpr, ast.Return, ast.Yield)):
            return parent.value is node
        return isinstance(node, (ast.Tuple, ast.List, ast.Set))  # a display of classes, used some other way

    def _function_route(self, function: FunctionNode) -> Optional[str]:
        """How ``function`` is reached other than by a call naming it: a decorator it is handed to, a
        string naming it (``getattr(registry, "add")``, a config's import path), or, for a method, its
        class handed to a decorator."""
        if _called_by_protocol(function, self.survey):
            return "is called by Python itself (by syntax such as `obj(...)` or `obj[k] = v`, or by `copy` or `pickle`), by no call that names it"
        decorator = handing_decorator(function, self.survey.names)
        if decorator is not None:
            return f"is handed to `@{text(decorator)}` (line {decorator.lineno}), which may call it"
        named = strings_naming(self.scopes.module).get(function.name)
        if named is not None:
            return f"is named by a string at line {named}, by which it can be looked up and called"
        owner_class = self.survey.method_owner.get(function)
        for info in self.survey.lineage(owner_class) if owner_class is not None else ():
            decorator = handing_decorator(info.node, self.survey.names)
            if decorator is not None:
                return f"is a method of `{info.name}`, which is handed to `@{text(decorator)}` (line {decorator.lineno})"
        return None

    def kept_where_built(self, call: ast.Call) -> Owner:
        """Whether what ``call`` builds is kept where it is built: bound to a name that owns it, stored on an
        object or in a container (``self.probe = Probe()``, ``X[k] = Probe()``), returned, or handed to a
        framework container's constructor (``nn.Sequential(Block(), ...)``, through a list or a
        comprehension). Called at once, passed to other code, or built in a generator
        (``Probe(tag)(h)``, ``min(Net(w) for w in widths)``, ``train(Experiment(...))``), it is not shown kept."""
        child: ast.AST = call
        parent = self.scopes.parent(call)
        while (
            isinstance(parent, (ast.List, ast.Tuple, ast.Set, ast.Starred)) or (isinstance(parent, ast.ListComp) and parent.elt is child)
            or (isinstance(parent, ast.GeneratorExp) and parent.elt is child and isinstance(self.scopes.parent(parent), (ast.Call, ast.Starred)))
        ):  # an element of a display or a list comprehension, or of a generator handed to a call (checked below)
            child, parent = parent, self.scopes.parent(parent)
        if (
            isinstance(parent, ast.Call) and child in parent.args and isinstance(parent.func, ast.Attribute)
            and parent.func.attr in _MODULE_KEEPING_METHODS
            and (parent.func.attr.startswith(("add_", "register_")) or getattr(self.evidence.of(parent.func.value), "kind", None) == MODULE)
        ):  # ``add_module`` and ``register_*`` are nn.Module's own names; a list's ``append`` needs the evidence
            return Owner(True, f"handed to `{text(parent.func)}`, which keeps it in that module")
        if isinstance(parent, ast.Call) and child in parent.args:
            built = self.evidence.of(parent)
            if getattr(built, "kind", None) == MODULE or self.survey.names.qualify(parent.func) in _KEEPING_CONSTRUCTORS:
                return self.kept_where_built(parent)
        if isinstance(parent, (ast.Return, ast.Yield)):
            return Owner(True, _RETURNED)
        if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and parent.value is child:
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            if any(isinstance(target, (ast.Attribute, ast.Subscript)) and not self._weakly_held(target) for target in targets):
                return Owner(True, f"stored as `{text(targets[0])}`")
            named = next((target for target in targets if isinstance(target, ast.Name)), None)
            if named is not None:
                return self._of_name(named, call.lineno, 1)
        return _missing(f"`{text(call)[:60]}` is not bound, stored or returned where it is built, so nothing is shown to keep it")

    def _of_global(self, name: str, bindings: list[Binding], line: int, steps: int) -> Owner:
        """A module global owns what it is bound to if it is bound once, and is no module: ``import torch``
        binds a module, whose attributes are its own, not what this module built."""
        if len(bindings) != 1 or name in self._declared_global():
            return _missing(f"the module global `{name}` is bound more than once, so an earlier object loses its owner while the container is read")
        binding = bindings[0]
        if isinstance(binding.node, ast.Import):
            return _missing(f"`{name}` is an imported module, which owns none of the objects this module builds")
        if binding.how == "value" and isinstance(binding.node, ast.GeneratorExp):
            return _missing(f"the module global `{name}` is a generator, which makes each object it yields and keeps none")
        if name != self._container:  # the container's own stores and pops are the same on both sides
            self._note_releases(self.scopes.module, name)
        return Owner(True, f"the module global `{name}`, bound once")

    def _declared_global(self) -> frozenset[str]:
        """The names a function of this module rebinds as globals (``global model``)."""
        if self._globals is None:
            self._globals = frozenset(name for node in walk(self.scopes.module) if isinstance(node, ast.Global) for name in node.names)
        return self._globals

    def _rebound(self, function: FunctionNode, name: str) -> Optional[str]:
        """How ``name`` in ``function`` is bound again, or run again: more than once, in a loop, or in a
        function called more than once or in a loop."""
        again = self._bound_again(function, name)
        if again is not None:
            return again
        calls = [c for c in self.evidence.calls_of(function.name) if self.scopes.resolve(function.name, c) is not None]
        if len(calls) > 1:
            return f"lives in `{function.name}`, which line {calls[1].lineno} calls again"
        if calls and self._in_loop(calls[0], self.scopes.module):
            return f"lives in `{function.name}`, called in a loop at line {calls[0].lineno}"
        return None

    def _bound_again(self, function: FunctionNode, name: str) -> Optional[str]:
        """How ``name`` is bound again within one run of ``function``: more than once, or in a loop. What it
        held before is then kept by nothing the function hands on (``layer = nn.Linear(...)`` in a loop,
        only the last of which is returned)."""
        binds = [node for node in walk(function) if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)]
        converted = [node for node in binds if self._converted(node)]
        if converted and len(binds) - len(converted) == 1:
            first = next(node for node in binds if node not in converted)
            assignment = self.scopes.parent(first)
            built = self.evidence.of(assignment.value) if isinstance(assignment, ast.Assign) else None
            if getattr(built, "kind", None) == MODULE:
                binds = [first]  # ``model = model.half()`` binds the same module again
        if any(not self._exclusive(first, second) for index, first in enumerate(binds) for second in binds[index + 1:]):
            return f"is bound {len(binds)} times"
        if binds and self._in_loop(binds[0], function):
            return f"is bound in a loop (line {binds[0].lineno})"
        return None

    def _weakly_held(self, stored: ast.expr) -> bool:
        """``_BY_NAME[name] = model`` where ``_BY_NAME`` is a module global bound once to a container that
        holds what is stored in it weakly (``weakref.WeakValueDictionary()``, the runtime's): it keeps nothing."""
        if not (isinstance(stored, ast.Subscript) and isinstance(stored.value, ast.Name)):
            return False
        resolved = self.scopes.resolve(stored.value.id, stored.value)
        bindings = resolved[1] if resolved is not None and isinstance(resolved[0], ast.Module) else []
        value = bindings[0].node if len(bindings) == 1 and bindings[0].how == "value" else None
        callee = (self.survey.names.qualify(value.func) or "") if isinstance(value, ast.Call) else ""
        return callee in _WEAK_CONTAINERS or callee.rpartition(".")[2] in _RUNTIME_WEAK_CONTAINERS

    def _exclusive(self, first: ast.AST, second: ast.AST) -> bool:
        """Whether ``first`` and ``second`` are in different arms of one ``if`` (``if pipe: engine = A()
        else: engine = B()``): one run binds only one of them."""
        child, current = first, self.scopes.parent(first)
        while current is not None:
            if isinstance(current, ast.If):
                arms = (current.body, current.orelse)
                mine = next((arm for arm in arms if child in arm), None)
                other = next((arm for arm in arms if arm is not mine and any(second in walk(statement) for statement in arm)), None)
                if mine is not None and other is not None:
                    return True
            child, current = current, self.scopes.parent(current)
        return False

    def _converted(self, bound: ast.Name) -> bool:
        """``model = model.half()``, ``model = model.to(device)``: where ``model`` is a module, its
        conversions work in place and return the module itself."""
        assignment = self.scopes.parent(bound)
        value = assignment.value if isinstance(assignment, ast.Assign) and assignment.targets == [bound] else None
        return (
            isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in MODULE_METHODS_RETURNING_SELF
            and isinstance(value.func.value, ast.Name) and value.func.value.id == bound.id
        )

    def _in_loop(self, node: ast.AST, within: ast.AST) -> bool:
        current = self.scopes.parent(node)
        while current is not None and current is not within:
            if isinstance(current, (ast.For, ast.AsyncFor, ast.While, *COMPREHENSIONS)):
                return True
            current = self.scopes.parent(current)
        return False

    def _rebinding_method(self, attribute: ast.Attribute) -> Optional[str]:
        """The method, other than ``__init__``, that assigns ``self.<attr>`` when ``attribute`` is that
        attribute of an instance of this module's class: each call replaces what it held."""
        if not isinstance(attribute.value, ast.Name):
            return None
        resolved = self.scopes.resolve(attribute.value.id, attribute.value)
        function = resolved[0] if resolved is not None else None
        owner_class = self.survey.method_owner.get(function) if function is not None else None  # type: ignore[arg-type]
        if owner_class is None or not resolved or resolved[1][0].how != "parameter" or function_parameters(function)[0].arg != attribute.value.id:  # type: ignore[arg-type]
            return None
        for ancestor in self.survey.lineage(owner_class):
            for method_name, method in ancestor.methods.items():
                parameters = function_parameters(method)
                if method_name == "__init__" or not parameters:
                    continue
                for node in walk(method):
                    if (
                        isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and node.attr == attribute.attr
                        and isinstance(node.value, ast.Name) and node.value.id == parameters[0].arg
                    ):
                        return f"{ancestor.name}.{method_name}"
        return None

    def _passed(self, function: FunctionNode, name: str, position: int, line: int, steps: int) -> Owner:
        """A parameter: owned where every call in this module passes something owned (``model.apply(f)``
        passes each module of ``model``), or, where this module never calls the function nor hands it out
        as a value, by the callers elsewhere, which the codemod checks."""
        route = self._function_route(function)
        if route is not None:
            return _missing(f"`{name}` is a parameter of `{function.name}`: `{function.name}` {route}, so what is passed for `{name}` is not known")
        method = function in self.survey.method_owner
        self._premises.append(Premise(self._callee(function), position, name, builds=function.name == "__init__"))
        applied: list[tuple[int, ast.expr]] = []
        for node in self.evidence.mentions_of(function.name, attribute=method):
            parent = self.scopes.parent(node)
            if isinstance(parent, ast.Call) and parent.func is node:
                continue  # a call: its argument is checked below
            over = _applied_over(node, parent)
            if over is not None and position == 0:
                applied.append((node.lineno, over))
            elif method or self._is_the_function(node, function):
                return _missing(f"`{function.name}` is handed out as a value at line {node.lineno}, so what is passed for `{name}` is not known")
        owner_class = self.survey.method_owner.get(function)
        # ``__init__`` is called by building the class: ``Engine(args, model)``
        calls = self.evidence.calls_of(owner_class.name) if owner_class is not None and function.name == "__init__" else self.evidence.calls_of(function.name, method=method)
        passed = [
            (call.lineno, argument) for call in calls
            if (argument := argument_at(call, name, position) if position >= 0 else None) is not None
        ]
        if not passed and not applied:
            return Owner(True, f"`{name}`, a parameter of `{function.name}`, which nothing in this module calls: its callers keep what they pass")
        for call_line, argument in passed:
            owner = self.of(argument, call_line, steps + 1)
            if not owner.shown:
                return _missing(f"the call at line {call_line} passes `{text(argument)}` for `{name}`: {owner.why}")
        for apply_line, model in applied:
            owner = self.of(model, apply_line, steps + 1)
            if not owner.shown:
                return _missing(f"line {apply_line} applies `{function.name}` to each module of `{text(model)}`: {owner.why}")
        return Owner(True, f"`{name}`, a parameter of `{function.name}`, whose every call here passes an object kept elsewhere")

    def _is_the_function(self, node: ast.expr, function: FunctionNode) -> bool:
        resolved = self.scopes.resolve(node.id, node) if isinstance(node, ast.Name) else None
        return resolved is not None and isinstance(resolved[0], ast.Module)


def _applied_over(node: ast.expr, parent: Optional[ast.AST]) -> Optional[ast.expr]:
    """``model.apply(f)``: ``f`` is called with each module of ``model``; returns ``model``."""
    if isinstance(parent, ast.Call) and parent.args[:1] == [node] and isinstance(parent.func, ast.Attribute):
        return parent.func.value if parent.func.attr == "apply" else None
    return None


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _called_by_protocol(function: FunctionNode, survey: Survey) -> bool:
    """A method Python calls by syntax or protocol (``__call__``, ``__setitem__``, ``__setstate__``), which
    no call names. ``__init__`` and ``__new__`` run where the class is called, which the proof follows."""
    return function in survey.method_owner and _is_dunder(function.name) and function.name not in ("__init__", "__new__")


def _builds_own_class(callee: ast.expr, receiver: Optional[str], survey: Survey) -> bool:
    """``cls`` of a class method (``receiver``), ``type(x)``, ``x.__class__``: the class a method runs for."""
    if isinstance(callee, ast.Name):
        return callee.id == receiver
    if isinstance(callee, ast.Attribute):
        return callee.attr == "__class__"
    return isinstance(callee, ast.Call) and len(callee.args) == 1 and survey.names.qualify(callee.func) == "builtins.type"


def _slots_without_weakref(cls: ast.ClassDef) -> bool:
    """A class whose ``__slots__`` leave out ``__weakref__``: no weak reference to it can be made, so the
    runtime holds it strongly."""
    for statement in cls.body:
        targets = statement.targets if isinstance(statement, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "__slots__" for t in targets):
            return "__weakref__" not in ast.unparse(statement.value)  # type: ignore[union-attr]
    return False


def _key_of_pair(pair: ast.expr) -> ast.expr:
    """The key of a ``(key, value)`` pair that ``X.update(...)`` reads."""
    return pair.elts[0] if isinstance(pair, ast.Tuple) and len(pair.elts) == 2 else pair


def _by_equality(expr: ast.expr, survey: Survey) -> bool:
    """A constant, a string built here, or a number: the runtime holds it strongly, by equality."""
    if isinstance(expr, (ast.Constant, ast.JoinedStr)):
        return True
    if isinstance(expr, ast.BinOp):
        return _by_equality(expr.left, survey) and _by_equality(expr.right, survey)
    return isinstance(expr, ast.Call) and (survey.names.qualify(expr.func) or "") in _VALUE_BUILTINS


def owners_in(tree: ast.Module, source: str, vocabulary: Vocabulary, context: Optional[ModuleContext]) -> Owners:
    """The owners of another module of the project, where the codemod checks a premise: what its calls
    pass to the functions that fill a container. Hooks are not followed there: a hook's argument has no
    owner shown."""
    survey = survey_module(tree, vocabulary, Imported(context, vocabulary))
    return Owners(survey, Evidence(Scopes(tree), survey, vocabulary, {}, Mentions(source)))


def _returned_names(node: ast.Return, function: FunctionNode) -> set[str]:
    """The locals whose objects ``node`` hands to the caller: ``return layer``, ``return layer, opt``, and
    the elements of a display bound to a local it returns (``items = [engine, opt]; return tuple(items)``,
    DeepSpeed's ``initialize``)."""
    value = node.value
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("tuple", "list") and len(value.args) == 1:
        value = value.args[0]
    if isinstance(value, (ast.Tuple, ast.List)):
        return {element.id for element in value.elts if isinstance(element, ast.Name)}
    if not isinstance(value, ast.Name):
        return set()
    names = {value.id}
    for statement in walk(function):
        if (
            isinstance(statement, ast.Assign) and isinstance(statement.value, (ast.Tuple, ast.List))
            and any(isinstance(target, ast.Name) and target.id == value.id for target in statement.targets)
        ):
            names.update(element.id for element in statement.value.elts if isinstance(element, ast.Name))
    return names
