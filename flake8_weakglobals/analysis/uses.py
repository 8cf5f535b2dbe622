"""Every use of a candidate container: where it is bound, filled, emptied, read by key, or handed away.

The second pass. One walk over the top-level statements whose text mentions a candidate indexes parents
and keeps the names and attributes the survey marked, plus hook registrations. Each reference is resolved
through Python's scoping rules to a ``Slot`` (``debug.module_names``, ``Registry.cache``, ``self.cache`` of a module-level instance)
and its use is sorted into what the rules and the fix need. Nothing here decides what is a framework
object: that is ``evidence``'s job, done afterwards on the recorded keys.
"""
from __future__ import annotations

import ast
import weakref
from dataclasses import dataclass, replace
from typing import Callable, Optional

from ..syntax.container_expressions import ContainerType, Member, classify, initial_members
from ..syntax.mentions import Mentions
from ..syntax.qualified_names import CASTS, Names
from ..syntax.scopes import FUNCTIONS, FunctionNode, Scopes, function_parameters, walk
from .evidence import text
from .walks_that_see_a_change import walk_that_sees_a_change
from .framework_types import MODULE_HOOK_REGISTRARS, TENSOR_HOOK_REGISTRARS
from .long_lived_places import Slot, SlotResolver
from .passed_to_calls import READING_CALLS, Passing
from .recorded_uses import Definition, Fill, SlotUses
from .survey import Survey

_MATCH = tuple(getattr(ast, name) for name in ("Match",) if hasattr(ast, name))
_IMPORTS = frozenset({ast.Import, ast.ImportFrom})
#: Methods whose bound method, handed out, fills the container where the fix cannot see what with
#: (``remember = X.append``); a reading one (``key=X.get``) reads it as the call would.
_BOUND_METHODS_THAT_FILL = frozenset("append extend insert add update setdefault __setitem__ __ior__ __iadd__".split())
#: Callers that only call a function handed to them, and keep it from other code.
_ONLY_CALLING = frozenset({
    "builtins.map", "builtins.filter", "builtins.sorted", "builtins.min", "builtins.max",
    "heapq.nlargest", "heapq.nsmallest", "atexit.register",
})
#: Calls that read a local and keep no reference to it.
_READ_IN_PLACE = READING_CALLS | {"builtins.len", "builtins.print", "builtins.repr", "builtins.str", "builtins.bool"}
_KEY_FREE_METHODS = {"values", "clear", "__len__", "get", "__contains__", "__getitem__", "setdefault", "pop", "remove", "discard"}


@dataclass
class Collected:
    references: list[ast.expr]
    hook_calls: list[ast.Call]


def collect(module: ast.Module, mentions: Mentions, survey: Survey, scopes: Scopes) -> Collected:
    """The one full walk, of the statements whose text mentions a candidate name or a hook registration (a
    reference is always spelled out in the source), at any depth, with the headers of the statements around
    them: candidate references, hook registrations, walrus targets, and imports inside functions."""
    names = survey.module_candidates.union(*survey.class_candidates.values())
    attributes = set().union(*survey.class_candidates.values(), *survey.instance_candidates.values())
    # a walrus binds in its function whatever statement it sits in: its line always matters
    lines = sorted({*mentions.words(names | attributes), *mentions.lines(r"register_\w*hook"), *mentions.lines(":=")})
    registrars = MODULE_HOOK_REGISTRARS | TENSOR_HOOK_REGISTRARS
    references: list[ast.expr] = []
    hook_calls: list[ast.Call] = []
    walruses: list[ast.NamedExpr] = []

    def mentioned(node: ast.stmt | ast.expr) -> bool:  # imports too: they qualify the names of what is walked
        return type(node) in _IMPORTS or Mentions.within(lines, node)

    for node in scopes.index_parts(module, mentioned):
        kind = type(node)
        if kind is ast.Name:
            if node.id in names:  # type: ignore[attr-defined]
                references.append(node)  # type: ignore[arg-type]
        elif kind is ast.Attribute:
            if node.attr in attributes:  # type: ignore[attr-defined]
                references.append(node)  # type: ignore[arg-type]
        elif kind is ast.Call:
            function = node.func  # type: ignore[attr-defined]
            called = function.attr if type(function) is ast.Attribute else getattr(function, "id", None)
            if called in registrars:
                hook_calls.append(node)  # type: ignore[arg-type]
        elif kind is ast.NamedExpr:
            walruses.append(node)  # type: ignore[arg-type]
        elif kind is ast.Import or kind is ast.ImportFrom:
            survey.names.add_import(node, module_level=False)  # type: ignore[arg-type]
    scopes.add_walruses(walruses)
    references.sort(key=lambda node: (node.lineno, node.col_offset))
    return Collected(references, hook_calls)


class UseClassifier:
    """Resolves references to slots and sorts their uses into ``SlotUses``.

    What the runtime can honour is an allow-list: subscripts, methods, ``in``, iteration, truth tests,
    comparisons, and calls known to read their argument as a mapping or an iterable. A container passed to
    a function or method of this module is followed into it, as the parameter that receives it. Any
    other use (an alias, a ``return``, a walrus, storing it in another container, a ``match``, an unbound
    ``dict.get``) is a blocker: the fix cannot see what happens to the container after it escapes.
    """

    def __init__(
        self,
        scopes: Scopes,
        survey: Survey,
        calls_of: Callable[[str], list[ast.Call]],
        mentions_of: Callable[[str, bool], list[ast.expr]],
    ) -> None:
        self.scopes = scopes
        self.survey = survey
        self.calls_of = calls_of  # ``Evidence.calls_of``: the calls of a module-level name, found through its mentions
        self.mentions_of = mentions_of  # ``Evidence.mentions_of``: the reads of a name, or of an attribute of any object
        self.slots = SlotResolver(scopes, survey)
        self.uses: dict[Slot, SlotUses] = {}
        self.passing = Passing(scopes, survey, self.slots, weakref.WeakMethod(self._classify))  # no cycle: see ``survey``
        self._getters: list[FunctionNode] = []  # module functions that return the container being classified
        self._at_exit: Optional[set[str]] = None  # names of the functions registered with ``atexit``

    def add(self, reference: ast.expr) -> None:
        slot = self.slots.resolve(reference)
        if slot is not None:
            uses = self.uses.setdefault(slot, SlotUses(slot))
            self._attributed(reference, uses, lambda: self._classify(reference, uses))
            followed: set[ast.AST] = set()
            while self._getters:  # ``get_stack().append(self)``: each call of a getter is the container too
                getter = self._getters.pop()
                if getter in followed:  # a getter that returns another getter's call, or its own
                    continue
                followed.add(getter)
                for call in self._calls_of(getter):
                    self._attributed(call, uses, lambda call=call: self._followed(call, uses))

    def _attributed(self, node: ast.expr, uses: SlotUses, classify: Callable[[], None]) -> None:
        """Classify one expression that stands for the container, and tag what it added with where it is:
        at import or in which function, through ``self``, and whether that function undoes its fills."""
        before, reads, removals = len(uses.fills), len(uses.subscript_reads), len(uses.removals)
        uses.ledger.append((node.lineno, self._statement_shown(node)))
        if not self._used_as_a_queue(node):
            uses.out_of_turn.append(node.lineno)
        classify()
        scope = next(self.scopes.chain(node))
        function = scope if isinstance(scope, FUNCTIONS) else None
        through_instance = uses.slot.where == "class" and function is not None and self._on_self(node, function)
        if len(uses.fills) > before:
            at_import = isinstance(scope, (ast.Module, ast.ClassDef))
            uses.fills[before:] = [
                replace(fill, at_import=at_import, function=function, through_instance=through_instance)
                for fill in uses.fills[before:]
            ]
        if through_instance and len(uses.subscript_reads) > reads:  # ``self.X[k].append(v)`` on a defaultdict
            uses.subscript_reads[reads:] = [replace(fill, through_instance=True) for fill in uses.subscript_reads[reads:]]
        if len(uses.removals) > removals and isinstance(scope, FUNCTIONS):
            uses.removing.add(scope)
            if self._at_count_zero(node, scope):
                uses.released_at_zero.append(node.lineno)
            if scope.name == "__exit__" or self._in_finally(node, scope):
                uses.undoing.add(scope)
        if function is not None and self._runs_at_exit(function):
            uses.blockers.append((node.lineno, f"`{function.name}` reads it at exit, registered with `atexit`, after the objects' owners are gone"))
        if len(uses.removals) > removals:
            drained_in = self._drained_by_its_filler(node)
            if drained_in is not None:
                uses.drains.append((drained_in, node.lineno))

    def _statement_shown(self, node: ast.AST) -> ast.AST:
        """The statement that uses the container, which a fix's proof shows (``statement_text``); for a
        header, the expression itself, which says more than the whole block. Only the node is kept: most
        containers are never fixed, and their proof is never printed."""
        statement: Optional[ast.AST] = node
        while statement is not None and not isinstance(statement, ast.stmt):
            statement = self.scopes.parent(statement)
        if statement is None or isinstance(statement, (*FUNCTIONS, ast.ClassDef, ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.Try)):
            return node
        return statement

    def _getter(self, statement: ast.Return) -> Optional[FunctionNode]:
        """The module-level function this ``return`` of the container is in, if it is one."""
        scope = next(self.scopes.chain(statement))
        return scope if isinstance(scope, FUNCTIONS) and self.survey.functions.get(scope.name) is scope else None  # type: ignore[return-value]

    def _calls_of(self, getter: FunctionNode) -> list[ast.Call]:
        """The calls ``getter()`` in this module, where its name is the module's function."""
        return [
            node for node in self.calls_of(getter.name)
            if (resolved := self.scopes.resolve(getter.name, node)) is not None and resolved[0] is self.scopes.module
        ]

    def _on_self(self, reference: ast.expr, function: FunctionNode) -> bool:
        """``self.X`` in an instance method: ``self`` the method's first parameter."""
        if not (isinstance(reference, ast.Attribute) and isinstance(reference.value, ast.Name)):
            return False
        if function not in self.survey.method_owner or function in self.survey.unbound_methods:
            return False
        parameters = function_parameters(function)
        return bool(parameters) and parameters[0].arg == reference.value.id

    def _runs_at_exit(self, function: ast.AST) -> bool:
        """A function registered with ``atexit`` (``@atexit.register``, ``atexit.register(f)``): it runs
        after the program's entry point has returned and its locals, the owners of what a weak container
        holds, are gone."""
        if self._at_exit is None:
            self._at_exit = set()
            uses_atexit = any(alias.name == "atexit" for node in self.scopes.module.body if isinstance(node, (ast.Import, ast.ImportFrom))
                              for alias in ([ast.alias(node.module or "")] if isinstance(node, ast.ImportFrom) else node.names))
            registers = [*self.mentions_of("register"), *self.mentions_of("register", True)] if uses_atexit else []
            for register in registers:  # as a decorator, or called
                if self.survey.names.qualify(register) != "atexit.register":
                    continue
                parent = self.scopes.parent(register)
                if isinstance(parent, FUNCTIONS) and register in parent.decorator_list:
                    self._at_exit.add(parent.name)
                elif isinstance(parent, ast.Call) and parent.func is register and parent.args:
                    self._at_exit.add(text(parent.args[0]))
        return getattr(function, "name", None) in self._at_exit

    def _drained_by_its_filler(self, reference: ast.expr) -> Optional[FunctionNode]:
        """The function this removal drains the container in, if it is a drain: on the function's normal
        path (not in an ``except``, not only once the container has grown: that bounds it), taking out
        whatever it holds (``X.clear()``, a removal in a loop or a comprehension) or the very key the same
        function fills (``X.setdefault(block, {})`` ... ``del X[block]``), never a key chosen from the
        container itself (``X.pop(next(iter(X)))`` evicts the oldest and keeps the rest)."""
        parent = self.scopes.parent(reference)
        if isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Del):
            removal: ast.AST = parent
            key: Optional[ast.expr] = parent.slice
        elif isinstance(parent, ast.Attribute) and isinstance(call := self.scopes.parent(parent), ast.Call) and call.func is parent:
            removal, key = call, (call.args[0] if call.args else None)
        else:
            return None
        spelled = text(reference)
        function: Optional[ast.AST] = None
        repeated = key is None
        child, current = removal, self.scopes.parent(removal)
        while current is not None and function is None:
            if isinstance(current, ast.ExceptHandler) or isinstance(current, ast.Module) or isinstance(current, ast.ClassDef):
                return None
            if isinstance(current, (ast.If, ast.While)) and child is not current.test and _measures(current.test, spelled):
                return None
            if isinstance(current, (ast.For, ast.AsyncFor, ast.While, *_COMPREHENSIONS)):
                repeated = True
            if isinstance(current, FUNCTIONS):
                function = current
            child, current = current, self.scopes.parent(current)
        if function is None or (key is not None and spelled in text(key)):
            return None
        if repeated or _fills_key(function, spelled, text(key)):  # type: ignore[arg-type]
            return function  # type: ignore[return-value]
        return None

    def _at_count_zero(self, node: ast.AST, function: ast.AST) -> bool:
        """Whether ``node`` runs only once a count the function decrements reaches zero: under ``if c <= 0``,
        ``if c == 0`` or ``if c < 1``, with ``c -= 1`` in the same function (a reference count)."""
        current = self.scopes.parent(node)
        while current is not None and current is not function:
            test = current.test if isinstance(current, ast.If) else None
            if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant):
                bound, op = test.comparators[0].value, test.ops[0]
                at_zero = (bound == 0 and isinstance(op, (ast.LtE, ast.Eq))) or (bound == 1 and isinstance(op, ast.Lt))
                counter = text(test.left)
                if at_zero and any(
                    isinstance(inner, ast.AugAssign) and isinstance(inner.op, ast.Sub) and text(inner.target) == counter
                    for inner in walk(function)
                ):
                    return True
            current = self.scopes.parent(current)
        return False

    def _in_finally(self, node: ast.AST, function: ast.AST) -> bool:
        child, current = node, self.scopes.parent(node)
        while current is not None and current is not function:
            if isinstance(current, ast.Try) and any(child is statement for statement in current.finalbody):
                return True
            child, current = current, self.scopes.parent(current)
        return False

    # --- classification ----------------------------------------------------------------------------

    def _classify(self, reference: ast.expr, uses: SlotUses) -> None:
        parent = self.scopes.parent(reference)
        if isinstance(reference.ctx, ast.Store):  # type: ignore[attr-defined]
            if self.passing.following:
                uses.blockers.append((reference.lineno, f"{self.passing.where()}the parameter that receives it is rebound"))
            else:
                self._binding(reference, parent, uses)
        elif isinstance(reference.ctx, ast.Del):  # type: ignore[attr-defined]
            uses.removals.append(reference.lineno)
        else:
            self._read(reference, parent, uses)

    def _read(self, node: ast.expr, parent: Optional[ast.AST], uses: SlotUses) -> None:
        """A use of the container's value; ``node`` evaluates to it (the reference, or ``X or {}`` around it)."""
        line = node.lineno
        sequence = {d.constructor.type for d in uses.definitions if d.constructor is not None} == {ContainerType.SEQUENCE}
        sees_a_change = walk_that_sees_a_change(self.scopes.parent, node, sequence)
        if sees_a_change is not None:
            uses.blockers.append((line, sees_a_change))
        if self._read_as_types(node, parent):
            uses.read_as_types.append(line)
        if isinstance(parent, ast.Subscript) and parent.value is node:
            self._subscript(parent, uses)
        elif isinstance(parent, ast.Attribute) and parent.value is node:
            self._method(parent, uses)
        elif isinstance(parent, ast.Compare):
            self._compare(node, parent, uses)
        elif isinstance(parent, ast.Call) and parent.func is not node:
            callee = self.survey.names.qualify(parent.func)
            if parent.args[:1] == [node] and not parent.keywords and callee == "copy.copy":
                self._copied(parent, uses)
            elif callee in CASTS and len(parent.args) == 2 and parent.args[1] is node:
                self._followed(parent, uses)  # ``typing.cast(dict, X)`` is ``X`` itself, wherever it goes next
            else:
                self.passing.argument(parent, node, uses, line)
        elif isinstance(parent, ast.keyword):
            self.passing.argument(self.scopes.parent(parent), node, uses, line)  # type: ignore[arg-type]
        elif isinstance(parent, ast.AugAssign) and parent.value is node and self._merged_into_a_local(parent, uses):
            uses.key_uses.append((line, "`|=` into a local"))
        elif isinstance(parent, ast.BinOp):
            uses.operators.append(line)
            uses.key_uses.append((line, "an operator"))
        elif isinstance(parent, ast.BoolOp) or (isinstance(parent, ast.IfExp) and parent.test is not node):
            self._read(parent, self.scopes.parent(parent), uses)  # ``X or {}`` is the container too
        elif isinstance(parent, _MATCH) and parent.subject is node and not _class_patterns(parent):  # type: ignore[attr-defined]
            uses.key_uses.append((line, "a `match` statement"))  # mapping and value patterns: any Mapping matches
        elif _only_tested(node, parent):
            if isinstance(parent, ast.FormattedValue):
                uses.printed.append(line)
        elif isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is node:
            uses.key_uses.append((line, "iteration"))
        elif isinstance(parent, (ast.Tuple, ast.List)) and len(parent.elts) > 1 and self.passing.deep_copied(parent):
            # ``deepcopy((model, X))``: the copy's keys are copies, kept only where each was part of the copied group
            uses.blockers.append((line, f"it is deep-copied together with `{text(parent)}`, and what owns each copied key is not shown"))
        elif isinstance(parent, ast.Starred) or (isinstance(parent, ast.Dict) and node in parent.values and None in parent.keys):
            uses.key_uses.append((line, "unpacking"))  # ``f(*X)``, ``[*X]``, ``{**X}``: iterates it
        elif isinstance(parent, ast.Return) and not self.passing.following and (getter := self._getter(parent)) is not None:
            # The module's own calls of the getter fill and empty it, which the rules must see; callers in
            # other modules may do anything with it, so the fix stays refused.
            uses.blockers.append((line, f"it is returned to callers the fix cannot see: `{getter.name}()` hands it out"))
            self._getters.append(getter)
        else:
            uses.blockers.append((line, f"{self.passing.where()}{_escape(node, parent)}"))

    def _merged_into_a_local(self, merge: ast.AugAssign, uses: SlotUses) -> bool:
        """``total |= X``, where ``total`` is a local the same function binds only to new containers of X's
        kind. ``dict.__ior__`` reads any mapping by its keys, so it takes the runtime's map as it took the
        dict. ``set.__ior__`` takes only sets, so ``total`` is bound to a new set with the same items
        instead: the same, as long as no other name holds the old one (``total`` is only read in place)."""
        if not (isinstance(merge.op, ast.BitOr) and isinstance(merge.target, ast.Name)):
            return False
        types = {definition.constructor.type if definition.constructor is not None else None for definition in uses.definitions}
        if types and types <= {ContainerType.MAP, ContainerType.DEFAULT_MAP}:
            made, in_place = (ast.Dict, ast.DictComp), "builtins.dict"
        elif types == {ContainerType.SET}:
            made, in_place = (ast.Set, ast.SetComp), "builtins.set"
        else:
            return False
        function = next(self.scopes.chain(merge))
        if not isinstance(function, FUNCTIONS):
            return False
        name = merge.target.id
        if any(parameter.arg == name for parameter in function_parameters(function)) or any(
            isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names for node in walk(function)
        ):
            return False
        named = [node for node in walk(function) if isinstance(node, ast.Name) and node.id == name and node is not merge.target]
        bindings = [node for node in named if not isinstance(node.ctx, ast.Load)]
        if not bindings or not all(self._new_container(binding, made, in_place) for binding in bindings):
            return False
        return in_place == "builtins.dict" or all(self._read_in_place(node) for node in named if isinstance(node.ctx, ast.Load))

    def _new_container(self, binding: ast.Name, made: tuple[type, ...], constructor: str) -> bool:
        assignment = self.scopes.parent(binding)
        if not (isinstance(assignment, (ast.Assign, ast.AnnAssign)) and assignment.value is not None):
            return False
        if isinstance(assignment, ast.Assign) and assignment.targets != [binding]:
            return False
        value = assignment.value
        return isinstance(value, made) or (isinstance(value, ast.Call) and self.survey.names.qualify(value.func) == constructor)

    def _read_in_place(self, node: ast.Name) -> bool:
        """A read of a local that hands the object to no other name: a method called on it, ``len``,
        ``sorted`` and the other reading calls, ``in``, a loop over it, a comparison, printing, or the
        function's return (after which no later ``|=`` runs)."""
        parent = self.scopes.parent(node)
        if isinstance(parent, ast.Attribute):
            return isinstance(self.scopes.parent(parent), ast.Call) and self.scopes.parent(parent).func is parent  # type: ignore[union-attr]
        if isinstance(parent, ast.Call):
            return parent.func is not node and node in parent.args and self.survey.names.qualify(parent.func) in _READ_IN_PLACE
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)):
            return parent.iter is node
        return isinstance(parent, (ast.Compare, ast.FormattedValue, ast.Return))

    def _copied(self, copy: ast.expr, uses: SlotUses) -> None:
        """``X.copy()``, ``copy.copy(X)``: after the fix a container of the runtime's kind too, not a dict or a
        set, so its uses are judged as the container's (``snapshot = X.copy()`` saved with ``torch.save``),
        followed through a local variable that holds it."""
        first = len(uses.blockers)
        self._followed(copy, uses)
        uses.blockers[first:] = [
            (line, f"its copy `{text(copy)}` is no plain container either, and {reason}") for line, reason in uses.blockers[first:]
        ]

    def _followed(self, value: ast.expr, uses: SlotUses) -> None:
        """The uses of an expression that stands for the container (a copy of it, a cast of it), followed
        through a local variable that holds it."""
        parent = self.scopes.parent(value)
        local = _local_target(parent, value, self.scopes)
        if local is None:
            self._read(value, parent, uses)
            return
        function, target = local
        for reference in self.passing.references_in(function, target.id):
            if isinstance(reference.ctx, ast.Load):  # the one binding is ``target``; ``del`` only drops it
                self._read(reference, self.scopes.parent(reference), uses)

    def _compare(self, node: ast.expr, compare: ast.Compare, uses: SlotUses) -> None:
        operands = [compare.left, *compare.comparators]
        index = next(position for position, operand in enumerate(operands) if operand is node)
        for position in (index - 1, index):  # the operators on either side of the container
            if 0 <= position < len(compare.ops):
                operator = compare.ops[position]
                if isinstance(operator, (ast.In, ast.NotIn)) and position == index - 1:
                    self._key(operands[position], uses)
                elif isinstance(operator, (ast.Eq, ast.NotEq)):
                    uses.equalities.append(node.lineno)

    def _binding(self, target: ast.expr, parent: ast.AST, uses: SlotUses) -> None:
        top_level = isinstance(next(self.scopes.chain(target)), (ast.Module, ast.ClassDef))
        if isinstance(parent, ast.AugAssign):
            how = f"`{text(parent)}`"
            uses.fills.extend(Fill(member, target.lineno, how) for member in _update_members(parent.value, self.survey.names))
            return
        value: Optional[ast.expr] = None
        annotation = parent.annotation if isinstance(parent, ast.AnnAssign) else None
        if isinstance(parent, (ast.Assign, ast.AnnAssign)):
            value = parent.value
            if isinstance(parent, ast.Assign) and len(parent.targets) > 1:
                others = ", ".join(text(other) for other in parent.targets if other is not target)
                uses.blockers.append((target.lineno, f"it is bound together with `{others}` (`a = b = {{}}`), which shares one container"))
        elif isinstance(parent, (ast.Tuple, ast.List)):  # ``a, b = {}, {}``
            statement = self.scopes.parent(parent)
            source = getattr(statement, "value", None)
            if isinstance(source, (ast.Tuple, ast.List)) and len(source.elts) == len(parent.elts):
                value = source.elts[next(i for i, node in enumerate(parent.elts) if node is target)]
        constructor = classify(value, self.survey.names)
        if isinstance(parent, ast.AnnAssign) and value is None:
            constructor = classify(ast.Constant(None), self.survey.names)
        uses.definitions.append(Definition(target, value, annotation, constructor, top_level))

    def _subscript(self, subscript: ast.Subscript, uses: SlotUses) -> None:
        key, line = subscript.slice, subscript.lineno
        statement = self.scopes.parent(subscript)
        if isinstance(subscript.ctx, ast.Del):
            uses.removals.append(line)
        value = getattr(statement, "value", None) if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
        fills = self._keyed_fills(key, value, line, "`X[key] = value`", uses)
        if isinstance(subscript.ctx, ast.Store):
            uses.fills += fills
        elif isinstance(subscript.ctx, ast.Load):
            stored_into = self._stored_into(subscript)
            uses.subscript_reads += [Fill(Member(fill.member.expr, "item", stored_into), line, "`X[key]` on a defaultdict", fill.id_key) for fill in fills]
        self._key(key, uses)

    def _stored_into(self, entry: ast.Subscript) -> Optional[ast.expr]:
        """What ``X[k][i] = v`` or ``X[k].append(v)`` stores in the entry of ``k``: ``v``."""
        parent = self.scopes.parent(entry)
        if isinstance(parent, ast.Subscript) and parent.value is entry and isinstance(parent.ctx, ast.Store):
            statement = self.scopes.parent(parent)
            return statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
        call = self.scopes.parent(parent) if isinstance(parent, ast.Attribute) else None
        if isinstance(call, ast.Call) and call.func is parent and call.args:
            return call.args[-1]
        return None

    def _method(self, attribute: ast.Attribute, uses: SlotUses) -> None:
        method, line = attribute.attr, attribute.lineno
        uses.methods.append((line, method))
        call = self.scopes.parent(attribute)
        if not (isinstance(call, ast.Call) and call.func is attribute):
            uses.key_uses.append((line, f"`.{method}`"))
            if method in ("pop", "__delitem__", "discard", "remove") and self._called_when_collected(attribute, call):
                uses.removals.append(line)  # ``weakref.finalize(t, X.pop, id(t))``: a hand-written weak map
            if method in _BOUND_METHODS_THAT_FILL:  # ``remember = X.append``: called where the fix cannot see
                uses.blockers.append((line, f"its method `{text(attribute)}` is taken as a value, and what it is called with cannot be checked"))
            elif not (self._called_when_collected(attribute, call) or self._only_called(attribute, call)):
                uses.blockers.append((line, f"its method `{text(attribute)}` is handed on as a value, which carries the container itself (`__self__`) where the fix cannot follow it"))
            return
        arguments = [argument for argument in call.args if not isinstance(argument, ast.Starred)]
        if method in ("pop", "popitem", "clear", "remove", "discard", "popleft"):
            uses.removals.append(line)
            if method == "popleft" or (method == "pop" and _is_zero(call.args[0] if call.args else None)):
                uses.taken_in_order.append(line)
            if method in ("clear", "popitem", "popleft") and self._only_when_large(call, attribute.value):
                uses.bounding_clears.append(line)
        if method == "popitem" and (call.args or call.keywords):
            uses.blockers.append((line, "`.popitem()` takes arguments here, which the runtime's does not"))
        if method not in _KEY_FREE_METHODS:
            uses.key_uses.append((line, f"`.{method}()`"))
        if method == "copy":
            self._copied(call, uses)
        elif method in ("keys", "values", "items") and not self._iterated_at_once(call):
            uses.views_kept.append((line, f"`{text(call)}`"))
        if method == "setdefault" and arguments:
            value = arguments[1] if len(arguments) > 1 else None
            uses.fills += self._keyed_fills(arguments[0], value, line, "`X.setdefault(...)`", uses)
        elif method == "__setitem__" and len(arguments) == 2:  # ``X[k] = v`` spelled as a call, as a lambda must
            uses.fills += self._keyed_fills(arguments[0], arguments[1], line, "`X.__setitem__(key, value)`", uses)
        elif method == "update":
            members = [member for argument in arguments for member in _update_members(argument, self.survey.names)]
            uses.fills.extend(Fill(member, line, "`X.update(...)`") for member in members)
        elif method in ("add", "append", "appendleft") and arguments:
            uses.fills.append(Fill(Member(arguments[0], "item"), line, f"`X.{method}(...)`"))
        elif method == "insert" and len(arguments) > 1:
            uses.fills.append(Fill(Member(arguments[1], "item"), line, "`X.insert(...)`"))
        elif method in ("extend", "extendleft") and arguments:
            uses.fills.append(Fill(Member(arguments[0], "iterable"), line, f"`X.{method}(...)`"))
        if method in ("get", "pop", "setdefault", "remove", "discard", "__contains__", "__getitem__", "__setitem__") and arguments:
            self._key(arguments[0], uses)

    def _used_as_a_queue(self, node: ast.expr) -> bool:
        """A work queue's use: bound, filled at the back (``append``, ``extend``), taken from the front
        (``popleft()``, ``pop(0)``), emptied, measured (``len(X)``) or tested (``while X:``, ``not X``)."""
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Store):
            return True
        parent = self.scopes.parent(node)
        if isinstance(parent, ast.Attribute) and parent.value is node:
            call = self.scopes.parent(parent)
            if not (isinstance(call, ast.Call) and call.func is parent):
                return False
            return parent.attr in ("append", "extend", "popleft", "clear") or (parent.attr == "pop" and len(call.args) == 1 and _is_zero(call.args[0]))
        if isinstance(parent, ast.Call) and parent.args == [node] and self.survey.names.qualify(parent.func) == "builtins.len":
            return True
        if isinstance(parent, (ast.While, ast.If, ast.Assert, ast.IfExp)) and parent.test is node:
            return True
        return isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not)

    def _called_when_collected(self, attribute: ast.Attribute, call: Optional[ast.AST]) -> bool:
        """``weakref.finalize(obj, X.pop, key)`` or ``weakref.ref(obj, X.pop)``: the bound method is the
        callback that runs once ``obj`` is collected."""
        return (
            isinstance(call, ast.Call) and call.args[1:2] == [attribute]
            and self.survey.names.qualify(call.func) in ("weakref.finalize", "weakref.ref")
        )

    def _only_called(self, attribute: ast.Attribute, call: Optional[ast.AST]) -> bool:
        """``map(X.get, keys)``, ``sorted(keys, key=X.get)``, ``atexit.register(X.clear)``: a caller that
        only calls the bound method and never shows it to other code."""
        keyword = call if isinstance(call, ast.keyword) and call.value is attribute else None
        if keyword is not None:
            call = self.scopes.parent(keyword)
        if not isinstance(call, ast.Call) or call.func is attribute:
            return False
        sorts_a_list = keyword is not None and keyword.arg == "key" and isinstance(call.func, ast.Attribute) and call.func.attr == "sort"
        return sorts_a_list or self.survey.names.qualify(call.func) in _ONLY_CALLING

    def _only_when_large(self, call: ast.Call, container: ast.expr) -> bool:
        """``if len(X) > N: X.clear()``: the removal runs only once the container has grown, which bounds it
        but never empties it after a use."""
        spelled = text(container)
        child, current = call, self.scopes.parent(call)
        while current is not None and not isinstance(current, (*FUNCTIONS, ast.Module)):
            if isinstance(current, (ast.If, ast.While)) and child is not current.test and _measures(current.test, spelled):
                return True
            child, current = current, self.scopes.parent(current)
        return False

    def _iterated_at_once(self, call: ast.Call) -> bool:
        """``for k in X.keys()``, ``sorted(X.items())``: walked once, right away, by a loop or a reading call."""
        parent = self.scopes.parent(call)
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)):
            return parent.iter is call
        return isinstance(parent, ast.Call) and parent.args[:1] == [call] and self.survey.names.qualify(parent.func) in READING_CALLS

    def _keyed_fills(self, key: ast.expr, value: Optional[ast.expr], line: int, how: str, uses: SlotUses) -> list[Fill]:
        """What a keyed fill stores under ``key``: one fill, or, for a key made of addresses, one per object
        whose address it holds (``(id(combine), id(layer))``: the rule asks of each what it is)."""
        addresses = self._addresses_in(key, depth=3)
        if not addresses:
            return [Fill(Member(key, "item", value), line, how)]
        if any(compound for _, _, compound in addresses):  # ``(t.data_ptr(), tuple(t.shape))``, ``(id(x), n)``: an address inside a tuple
            uses.blockers.append((line, f"it is keyed by `{text(key)}`, a tuple holding an address, which no weak map can key by its object"))
            return [Fill(Member(obj, "item", value), line, how.replace("key", f"({spelled}, ...)"), id_key=True) for obj, spelled, _ in addresses]
        ((obj, spelled, _),) = addresses
        if spelled == "key.data_ptr()":  # an address like id(), but shared by every view of the storage
            uses.blockers.append((line, f"it is keyed by `{text(key)}`, which every view of the storage shares"))
        return [Fill(Member(obj, "item", value), line, how.replace("key", spelled), id_key=True)]

    def _addresses_in(self, key: ast.expr, depth: int) -> list[tuple[ast.expr, str, bool]]:
        """``(x, spelling, compound)`` for each object whose address ``key`` is made of: ``id(x)``,
        ``x.data_ptr()``, ``int(...)`` of one, the addresses a tuple holds, a local bound to one, or what a
        function of this module returns from one of its arguments (``_engine_key(qdata)`` returning
        ``(qdata.data_ptr(), ...)``)."""
        if depth < 0:
            return []
        if (inner := id_argument(key, self.survey.names)) is not None:
            return [(inner, "id(key)", False)]
        if (pointer := data_pointer_of(key)) is not None:
            return [(pointer, "key.data_ptr()", False)]
        if isinstance(key, ast.Call) and len(key.args) == 1 and self.survey.names.qualify(key.func) == "builtins.int":
            return self._addresses_in(key.args[0], depth)
        if isinstance(key, ast.Tuple):
            return [(obj, spelled, True) for element in key.elts for obj, spelled, _ in self._addresses_in(element, depth - 1)]
        if isinstance(key, ast.Name):
            resolved = self.scopes.resolve(key.id, key)
            if resolved is not None and isinstance(resolved[0], FUNCTIONS) and len(resolved[1]) == 1 and resolved[1][0].how == "value":
                return self._addresses_in(resolved[1][0].node, depth - 1)  # type: ignore[arg-type]
            return []
        if isinstance(key, ast.Call) and isinstance(key.func, ast.Name) and not key.keywords:
            returned = self._returned_address(key, depth - 1)
            return [returned] if returned is not None else []
        return []

    def _returned_address(self, call: ast.Call, depth: int) -> Optional[tuple[ast.expr, str, bool]]:
        """What ``call`` of a module-level function makes an address of, when every ``return`` of that
        function makes one of the same parameter's address: the argument passed for it."""
        function = self.survey.functions.get(call.func.id)  # type: ignore[attr-defined]
        if function is None or self.scopes.resolve(call.func.id, call) is None:  # type: ignore[attr-defined]
            return None
        returned = [node.value for node in walk(function) if isinstance(node, ast.Return) and node.value is not None]
        found = [addresses[0] if (addresses := self._addresses_in(value, depth)) else None for value in returned]
        if not found or any(item is None for item in found) or len({item[1] for item in found}) != 1:  # type: ignore[index]
            return None
        obj, spelled, _ = found[0]  # type: ignore[misc]
        compound = any(item[2] for item in found)  # type: ignore[index]
        parameters = function_parameters(function)
        parameter = next((p for p in parameters if isinstance(obj, ast.Name) and p.arg == obj.id), None)
        if parameter is not None and parameter.annotation is None:  # the caller's argument says what it is
            position = parameters.index(parameter)
            if position >= len(call.args) or any(isinstance(argument, ast.Starred) for argument in call.args[: position + 1]):
                return None
            obj = call.args[position]
        return obj, spelled, compound

    def _key(self, key: ast.expr, uses: SlotUses) -> None:
        """A use that takes a key: ``id(x)`` keys can be unwrapped by the id-keyed fix, others cannot."""
        if id_argument(key, self.survey.names) is not None:
            uses.id_calls.append(key)  # type: ignore[arg-type]
        elif (bound := self._id_held_in_a_local(key)) is not None:
            if bound not in uses.id_calls:
                uses.id_calls.append(bound)
        else:
            uses.key_uses.append((key.lineno, f"the key `{text(key)}`"))

    def _id_held_in_a_local(self, key: ast.expr) -> Optional[ast.Call]:
        """``id(x)`` when ``key`` is a local bound once to it (``key = id(weight)``) and every read of that
        local is a key of this same container (``key not in X``, ``X[key]``, ``X.get(key)``): unwrapping
        the call at the binding then changes nothing but what the container is keyed by. A local read any
        other way (printed, stored, compared) sees the number, and stays a key use the fix cannot honour."""
        if not isinstance(key, ast.Name):
            return None
        resolved = self.scopes.resolve(key.id, key)
        if resolved is None or not isinstance(resolved[0], FUNCTIONS) or len(resolved[1]) != 1 or resolved[1][0].how != "value":
            return None
        call = resolved[1][0].node
        if not isinstance(call, ast.Call) or id_argument(call, self.survey.names) is None:
            return None
        spelled = _keyed_container(key, self.scopes.parent(key))
        if spelled is None:
            return None
        for node in walk(resolved[0]):
            if isinstance(node, ast.Name) and node.id == key.id and isinstance(node.ctx, ast.Load):
                parent = self.scopes.parent(node)
                if (self.scopes.resolve(node.id, node) or (None,))[0] is not resolved[0]:
                    continue  # a nested scope's own ``key``
                if parent is None or _keyed_container(node, parent) != spelled:
                    return None
        return call

    def _read_as_types(self, node: ast.expr, parent: Optional[ast.AST]) -> bool:
        """``isinstance(m, tuple(X))``, ``types = tuple(X)`` then ``isinstance(m, types)``, or ``for cls in X:
        issubclass(c, cls)``: what the container holds is a type check's second argument, which takes only
        classes. A registry filled by a class decorator holds the classes, whatever the decorator's parameter
        is annotated as (``def register(module: nn.Module)``)."""
        if isinstance(parent, ast.Call) and parent.args[:1] == [node] and self.survey.names.qualify(parent.func) in ("builtins.tuple", "builtins.list"):
            copy, holder = parent, self.scopes.parent(parent)
            if self._type_check_of(holder, copy):
                return True
            if isinstance(holder, ast.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name):
                return self._names_checked_against(next(self.scopes.chain(holder)), holder.targets[0].id)
            return False
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is node and isinstance(parent.target, ast.Name):
            within = self.scopes.parent(parent) if isinstance(parent, ast.comprehension) else parent
            return within is not None and self._names_checked_against(within, parent.target.id)
        return False

    def _names_checked_against(self, where: ast.AST, name: str) -> bool:
        """Whether ``name`` is a type check's second argument somewhere in ``where``."""
        return any(
            isinstance(node, ast.Name) and node.id == name and self._type_check_of(self.scopes.parent(node), node)
            for node in walk(where)
        )

    def _type_check_of(self, call: Optional[ast.AST], checked: ast.expr) -> bool:
        """``isinstance(x, checked)`` or ``issubclass(x, checked)``."""
        return (
            isinstance(call, ast.Call) and len(call.args) == 2 and call.args[1] is checked
            and self.survey.names.qualify(call.func) in ("builtins.isinstance", "builtins.issubclass")
        )


def _local_target(statement: Optional[ast.AST], value: ast.expr, scopes: Scopes) -> Optional[tuple[FunctionNode, ast.Name]]:
    """``(function, name)`` when ``statement`` is ``name = value`` inside ``function``, its only binding there
    (``name |= ...`` is another)."""
    if not (isinstance(statement, ast.Assign) and statement.value is value and len(statement.targets) == 1):
        return None
    target = statement.targets[0]
    resolved = scopes.resolve(target.id, target) if isinstance(target, ast.Name) else None
    if resolved is None or not isinstance(resolved[0], FUNCTIONS) or len(resolved[1]) != 1:
        return None
    return resolved[0], target  # type: ignore[return-value]


def _class_patterns(match: ast.AST) -> bool:
    """Whether a ``match`` has a class pattern (``case dict():``), which checks the subject's type; mapping
    patterns (``case {"k": v}:``) accept any Mapping, as the runtime's containers are."""
    match_class = getattr(ast, "MatchClass")
    return any(isinstance(node, match_class) for case in match.cases for node in walk(case.pattern))  # type: ignore[attr-defined]


def _only_tested(node: ast.expr, parent: Optional[ast.AST]) -> bool:
    """Uses that only look at the container's truth or print it: ``if X:``, ``not X``, ``f"{X}"``, ``X;``."""
    if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)):
        return parent.test is node
    return isinstance(parent, (ast.UnaryOp, ast.Expr, ast.FormattedValue))


def _escape(node: ast.expr, parent: Optional[ast.AST]) -> str:
    """Why a use lets the container escape the checks, in words."""
    if isinstance(parent, (ast.Assign, ast.AnnAssign)):
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        return f"it is aliased as `{', '.join(text(target) for target in targets)}`"
    if isinstance(parent, ast.NamedExpr):
        return f"it is aliased as `{text(parent.target)}` by a walrus"
    if isinstance(parent, (ast.Return, ast.Yield, ast.YieldFrom, ast.Lambda)):
        return "it is returned to callers the fix cannot see"
    if isinstance(parent, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
        return "it is stored in another container"
    if isinstance(parent, _MATCH):
        return "it is matched by a `match` statement, whose class patterns need a real dict or set"  # (``_class_patterns``)
    return f"it is used in `{text(parent)}`, which the fix cannot follow" if parent is not None else "an unknown use"


def data_pointer_of(key: ast.expr) -> Optional[ast.expr]:
    """``t`` when ``key`` is ``t.data_ptr()``: an id-like key of a tensor's storage."""
    if isinstance(key, ast.Call) and not key.args and not key.keywords and isinstance(key.func, ast.Attribute):
        return key.func.value if key.func.attr == "data_ptr" else None
    return None


def id_argument(key: ast.expr, names: Names) -> Optional[ast.expr]:
    """``x`` when ``key`` is ``id(x)`` (the builtin), else None."""
    if (
        isinstance(key, ast.Call)
        and len(key.args) == 1
        and not key.keywords
        and not isinstance(key.args[0], ast.Starred)
        and names.qualify(key.func) == "builtins.id"
    ):
        return key.args[0]
    return None


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_KEYED_METHODS = frozenset({"get", "pop", "setdefault", "__contains__", "__getitem__"})


def _keyed_container(key: ast.expr, parent: Optional[ast.AST]) -> Optional[str]:
    """The container ``key`` is a key of where it is read (``X[key]``, ``key in X``, ``X.get(key)``), as
    spelled; None for any other read."""
    if isinstance(parent, ast.Subscript) and parent.slice is key:
        return text(parent.value)
    if isinstance(parent, ast.Compare) and parent.left is key and len(parent.ops) == 1 and isinstance(parent.ops[0], (ast.In, ast.NotIn)):
        return text(parent.comparators[0])
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr in _KEYED_METHODS and parent.args[:1] == [key]:
        return text(parent.func.value)
    return None


def statement_text(statement: ast.AST) -> str:
    """A statement as a reviewer reads it in a proof: its first line, shortened."""
    shown = text(statement).splitlines()[0]  # type: ignore[arg-type]
    return shown if len(shown) <= 80 else shown[:77] + "..."


def _is_zero(expr: Optional[ast.expr]) -> bool:
    return isinstance(expr, ast.Constant) and expr.value == 0 and not isinstance(expr.value, bool)


def _measures(test: ast.expr, spelled: str) -> bool:
    """``len(X) > N``: a test of the container's size."""
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"
        and len(node.args) == 1 and text(node.args[0]) == spelled
        for node in walk(test)
    )


def _fills_key(function: ast.AST, spelled: str, key: str) -> bool:
    """Whether ``function`` puts an entry under ``key`` into the container spelled ``spelled``:
    ``X[key] = v``, ``X.setdefault(key, ...)``."""
    for node in walk(function):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and text(node.value) == spelled:
            if text(node.slice) == key:
                return True
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "setdefault":
            if node.args and text(node.func.value) == spelled and text(node.args[0]) == key:
                return True
    return False


def _update_members(argument: ast.expr, names: Names) -> list[Member]:
    """``X.update(a)`` / ``X |= a``: what a mapping display, comprehension or constructor holds, else ``a``
    itself, read as pairs by a map and as elements by a set (``m.update([(p, n) for ...])`` holds pairs)."""
    constructor = classify(argument, names)
    if constructor is not None and constructor.type.keyed:
        return initial_members(constructor)
    if constructor is not None and constructor.type is ContainerType.SET:
        return initial_members(constructor)
    return [Member(argument, "update")]
