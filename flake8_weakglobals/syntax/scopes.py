"""Scopes and bindings: which assignment a name refers to, following Python's own scoping rules.

Both questions the analysis asks need this: does ``module_names`` inside a function mean the global (or a
local that shadows it)? And what was ``module`` bound to where it is used as a key?

The walks over trees live here too: the parents index, and ``walk``, which every pass uses for ``ast.walk``.
"""
from __future__ import annotations

import ast
import bisect
import collections
from dataclasses import dataclass, field
from typing import Callable, Iterator, Optional, Union

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
#: Pattern captures of ``match`` statements (Python 3.10+; absent on 3.9).
_MATCH_CAPTURES = tuple(getattr(ast, name) for name in ("MatchAs", "MatchStar") if hasattr(ast, name))
_MATCH_MAPPINGS = tuple(getattr(ast, name) for name in ("MatchMapping",) if hasattr(ast, name))


@dataclass(frozen=True)
class Binding:
    """One place that binds a name.

    ``how`` is ``value`` (``node`` is the assigned expression), ``element`` (``node`` is an iterable whose
    element is bound), ``annotated`` (``node`` is the annotation), ``parameter`` (``node`` is the
    ``ast.arg``), ``def`` (``node`` is a function) or ``opaque`` (anything the analysis cannot follow).
    ``path`` indexes into tuples unpacked by the assignment (``for name, module in ...`` binds ``module``
    at path ``(1,)``).
    """

    how: str
    node: ast.AST
    path: tuple[int, ...] = ()


@dataclass
class ScopeBindings:
    names: dict[str, list[Binding]] = field(default_factory=dict)
    declared_global: set[str] = field(default_factory=set)

    def add(self, name: str, binding: Binding) -> None:
        self.names.setdefault(name, []).append(binding)


#: Fields that never hold a node whose parent matters: names and numbers, and the shared instances of
#: ``ast.Load``, ``ast.Add`` and the like (one object for the whole program, so it has no one parent). The
#: parents index skips them: they were a third of the nodes it visited.
_NO_CHILDREN = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "name", "module", "level", "asname", "conversion",
                          "is_async", "simple", "kind", "type_comment", "lineno", "col_offset"})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}  # each node type's other fields, worked out on first sight


class Scopes:
    """Parents, scope chains and per-scope bindings of one module, each computed on demand and cached.

    Parents are indexed one top-level statement at a time: the analysis indexes the parts of statements that
    mention what it looks for, and a statement is indexed whole, once, the first time a question reaches
    into it, so no module is walked for parents more than once in all.
    """

    def __init__(self, module: ast.Module) -> None:
        self.module = module
        self._parents: dict[ast.AST, ast.AST] = dict.fromkeys(module.body, module)
        self._indexed: set[ast.stmt] = set()
        self._first_lines = [first_line(statement) for statement in module.body]
        self._bindings: dict[ast.AST, ScopeBindings] = {}
        self._walruses: dict[ast.AST, list[ast.NamedExpr]] = {}

    def index(self, statement: ast.stmt) -> None:
        """Record the parent of every node under a top-level statement."""
        if statement not in self._indexed:
            self._indexed.add(statement)
            self.index_parts(statement)

    def index_parts(self, root: ast.AST, wanted: Optional[Callable[[ast.AST], bool]] = None) -> list[ast.AST]:
        """Index ``root`` and the nodes under it that are ``wanted`` (those whose text may matter: they cover
        a line that names what the caller looks for), at any depth, or all of them; returns those. A giant
        literal or a long function is entered only along the lines that matter. Whatever is left out is
        indexed in full the first time a question reaches into it (``parent``). A field's one node is
        handled apart from a list's nodes: wrapping it in a tuple to share the loop cost a sixth of the walk."""
        nodes: list[ast.AST] = [root]
        parents, pending, node_type, fields = self._parents, [root], ast.AST, _CHILD_FIELDS
        while pending:
            node = pending.pop()
            kind = type(node)
            names = fields.get(kind)
            if names is None:
                names = fields[kind] = tuple(name for name in kind._fields if name not in _NO_CHILDREN)
            for field_name in names:
                value = getattr(node, field_name, None)
                if type(value) is list:  # the parser's lists are plain lists: cheaper than ``isinstance``
                    for part in value:
                        if isinstance(part, node_type):
                            parents[part] = node
                            # no position (``arguments``, ``withitem``): always entered
                            if wanted is None or not hasattr(part, "end_lineno") or wanted(part):
                                nodes.append(part)
                                pending.append(part)
                elif isinstance(value, node_type):
                    parents[value] = node
                    if wanted is None or not hasattr(value, "end_lineno") or wanted(value):
                        nodes.append(value)
                        pending.append(value)
        return nodes

    def add_walruses(self, walruses: list[ast.NamedExpr]) -> None:
        for walrus in walruses:  # ``x := ...`` binds in the nearest enclosing function, past comprehensions
            scope = next(s for s in self.chain(walrus) if not isinstance(s, COMPREHENSIONS))
            self._walruses.setdefault(scope, []).append(walrus)

    def parent(self, node: ast.AST) -> Optional[ast.AST]:
        """A node not indexed yet is under one of the top-level statements covering its line: those are
        indexed whole, once. Entering them only along that line cost a walk per question (a long class
        asked about on many lines was walked again for each), where this costs one walk per statement."""
        parent = self._parents.get(node)
        if parent is not None:
            return parent
        line = getattr(node, "lineno", None)
        if line is not None and node is not self.module:
            position = bisect.bisect_right(self._first_lines, line)
            while position > 0 and self.module.body[position - 1].end_lineno >= line:  # type: ignore[operator]
                position -= 1  # every statement covering the line: ``a = 1; b = a; c = {}`` share one
                self.index(self.module.body[position])
            parent = self._parents.get(node)
        return parent

    def chain(self, node: ast.AST) -> Iterator[ast.AST]:
        """The scopes whose names ``node`` sees, innermost first and the module last.

        Defaults, decorators and annotations belong to the enclosing scope, so does the first iterable of
        a comprehension; class bodies are invisible from the functions nested in them.
        """
        below, child, current = None, node, self.parent(node)
        inside_function = False
        while current is not None:
            # a statement is the only child a ``def`` or a ``class`` keeps in its ``body`` (its decorators,
            # arguments, bases and annotation are expressions): no scan of the body for it
            if isinstance(current, FUNCTIONS) and isinstance(child, ast.stmt):
                inside_function = True
                yield current
            elif isinstance(current, ast.Lambda) and child is current.body:
                inside_function = True
                yield current
            elif isinstance(current, COMPREHENSIONS):
                if not (child is current.generators[0] and below is current.generators[0].iter):
                    yield current
            elif isinstance(current, ast.ClassDef) and isinstance(child, ast.stmt) and not inside_function:
                yield current
            elif isinstance(current, ast.Module):
                yield current
            below, child, current = child, current, self.parent(current)

    def resolve(self, name: str, node: ast.AST) -> Optional[tuple[ast.AST, list[Binding]]]:
        """The scope whose binding of ``name`` is visible at ``node``, with its bindings."""
        for scope in self.chain(node):
            bindings = self.bindings(scope)
            if name in bindings.declared_global:
                module = self.bindings(self.module)
                return (self.module, module.names[name]) if name in module.names else None
            if name in bindings.names:
                return scope, bindings.names[name]
        return None

    def bindings(self, scope: ast.AST) -> ScopeBindings:
        if scope not in self._bindings:
            self._bindings[scope] = _collect_bindings(scope, self._walruses.get(scope, []))
        return self._bindings[scope]


#: The statement lists of each compound statement, by type; ``except`` clauses and ``case``s come after.
_BLOCKS: dict[type, tuple[str, ...]] = {
    ast.If: ("body", "orelse"), ast.For: ("body", "orelse"), ast.AsyncFor: ("body", "orelse"),
    ast.While: ("body", "orelse"), ast.With: ("body",), ast.AsyncWith: ("body",),
    ast.Try: ("body", "orelse", "finalbody"),
    **{getattr(ast, name): fields for name, fields in (("TryStar", ("body", "orelse", "finalbody")), ("Match", ())) if hasattr(ast, name)},
}
COMPOUND = frozenset(_BLOCKS)  # for ``type(statement) in COMPOUND``: cheaper than calling ``nested_blocks``
_CLAUSES = frozenset(kind for kind in _BLOCKS if "handlers" in kind._fields or "cases" in kind._fields)


def nested_blocks(statement: ast.stmt) -> Iterator[list[ast.stmt]]:
    """Statement lists inside ``if``/``for``/``while``/``try``/``with``/``match``: still the same scope."""
    kind = type(statement)
    for name in _BLOCKS.get(kind, ()):
        block = getattr(statement, name)
        if block:
            yield block
    if kind in _CLAUSES:
        for clause in getattr(statement, "handlers", None) or getattr(statement, "cases", ()):
            yield clause.body


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes ``ast.walk`` yields, in its order (breadth first), at twice its speed: it runs two generators
    per node (``iter_child_nodes`` over ``iter_fields``), and the analysis walks trees in dozens of places
    (2.6% of the lint over torch, DeepSpeed and transformers)."""
    pending, node_type, fields = collections.deque([node]), ast.AST, _WALKED_FIELDS
    while pending:
        node = pending.popleft()
        kind = type(node)
        names = fields.get(kind)
        if names is None:
            names = fields[kind] = tuple(name for name in kind._fields if name not in _SCALAR_FIELDS)
        for name in names:
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, node_type):
                        pending.append(item)
            elif isinstance(value, node_type):
                pending.append(value)
        yield node


#: Fields that hold a string or a number in every node type that has them: ``walk`` never looks into them
#: (``name`` is left in: a type alias's is a node). A fifth of the walk went to reading them.
_SCALAR_FIELDS = frozenset({"id", "attr", "arg", "module", "level", "asname", "conversion", "is_async", "simple", "kind", "type_comment"})
_WALKED_FIELDS: dict[type, tuple[str, ...]] = {}  # each node type's fields ``walk`` reads, on first sight


def every_statement(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement under ``body`` at any depth, functions' and classes' included, without entering a
    single expression: finding the imports of a module this way visits a tenth of the nodes a full walk does.
    Outer statements come before the ones nested in them, as in ``ast.walk``."""
    pending = collections.deque([body])
    while pending:
        for statement in pending.popleft():
            yield statement
            if isinstance(statement, (*FUNCTIONS, ast.ClassDef)):
                pending.append(statement.body)
            elif type(statement) in COMPOUND:
                pending.extend(nested_blocks(statement))


def attributes_set_back(body: list[ast.stmt], is_instance: Callable[[ast.expr], bool]) -> set[str]:
    """The attributes statements under ``body`` set to ``None`` or delete on an object ``is_instance`` names:
    ``self.model = None``, ``del self.model``, ``SESSION.model = None``."""
    found = set()
    for node in every_statement(body):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value is None:
            found |= {t.attr for t in node.targets if isinstance(t, ast.Attribute) and is_instance(t.value)}
        elif isinstance(node, ast.Delete):
            found |= {t.attr for t in node.targets if isinstance(t, ast.Attribute) and is_instance(t.value)}
    return found


def own_returns(function: FunctionNode) -> list[ast.Return]:
    """The function's own ``return value`` statements (a bare ``return`` left out), not those of the functions
    and classes it defines."""
    return [statement for statement in module_level(function.body) if type(statement) is ast.Return and statement.value is not None]  # type: ignore[attr-defined]


def module_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements that run in the module's own namespace: its body, and the blocks of its ``if``,
    ``try``, ``with`` and loops at any depth (``try: from .table import X``), not function or class bodies."""
    pending = [body]
    while pending:
        for statement in pending.pop():
            yield statement
            if type(statement) in COMPOUND:
                pending.extend(nested_blocks(statement))


def is_main_guard(statement: ast.stmt) -> bool:
    """``if __name__ == "__main__":``, the block a module runs only as a program."""
    test = statement.test if isinstance(statement, ast.If) else None
    return (
        isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
        and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == "__main__"
    )


def names_read_at_import(module: ast.Module) -> set[str]:
    """The names the module's own statements read as it runs (``trainer.train()``, ``for batch in
    collector:``), not inside its functions and classes: a module that works with an object at import is a
    program, and the object lives exactly as long as that work."""
    return {name for statement in module_level(module.body) for name in names_read_by(statement)}


def names_read_by(statement: ast.stmt) -> set[str]:
    """The names a statement of a block reads itself: a compound statement's own parts (``for batch in
    collector:``), not its blocks; nothing of a function's or class's body."""
    if isinstance(statement, (*FUNCTIONS, ast.ClassDef)):
        return set()
    return {node.id for part in own_parts(statement) for node in walk(part) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


def own_parts(statement: ast.stmt) -> list[ast.AST]:
    """What a statement of a block runs itself: a simple statement whole, a compound one's own expressions
    (``for batch in collector:``, ``with open(p) as f:``), not the statements of its blocks."""
    if type(statement) not in COMPOUND:
        return [statement]
    return [child for child in ast.iter_child_nodes(statement) if not isinstance(child, (ast.stmt, ast.excepthandler))]


#: Statements a binding before them still reaches past: their blocks run at most once each, in order. A
#: loop's body may run again after a later binding in it, so the search stops at a loop.
_STRAIGHT = (ast.If, ast.With, ast.AsyncWith, ast.Try, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))


def reaching_value(scopes: Scopes, name: ast.Name, scope: ast.AST) -> Optional[ast.expr]:
    """The value of the one assignment that reaches ``name`` in straight-line code: ``x = [...]`` then
    ``x = torch.cat(x)`` then ``KEEP = x`` reads the second. The nearest earlier statement of the same
    block (or of a block around it, out through ``if``/``with``/``try`` that bind it nowhere else, never
    out of a loop) that binds the name must be a plain ``x = value``, or a ``with`` block whose body ends
    with one (its body always runs); any other binding in between (nested, unpacked, augmented) or in the
    statement of the use itself answers None, but for the value of a plain ``x = x[None]``, which reads
    ``x`` before it binds it: the ``x`` that reached the statement."""
    def last_plain(block: list[ast.stmt], position: int) -> object:
        found = _last_plain_binding(block[:position], name.id)
        return _NOTHING_BINDS if found is None else found or None

    found = _reaching(scopes, name, scope, last_plain)
    return None if found is _NOTHING_BINDS else found  # type: ignore[return-value]


def values_through_branches(scopes: Scopes, name: ast.Name, scope: ast.AST) -> list[ast.expr]:
    """The values of the plain ``x = value`` assignments that may reach ``name`` when an ``if`` binds it in
    each branch its own way (``if mesh == "smpl": x = torch.tensor(a)`` / ``else: x = f(mesh)``), looking
    past augmented assignments (``x -= x.min()``), which change a value and not what it is. Empty where
    anything else binds it on the way (a loop, an unpacking, ``with ... as``): no value can be named there."""
    def through_branches(block: list[ast.stmt], position: int) -> object:
        found = _values_before(block, position, name.id)
        return _NOTHING_BINDS if found == [] else found

    found = _reaching(scopes, name, scope, through_branches)
    return found if isinstance(found, list) else []


#: What a block answers when nothing in it binds the name: the search goes on in the block around it.
_NOTHING_BINDS = object()


def _reaching(scopes: Scopes, name: ast.Name, scope: ast.AST, look: Callable[[list[ast.stmt], int], object]) -> object:
    """What ``look`` finds before the statement of ``name`` in its block, or, where nothing there binds it,
    before the statement around that block, out through ``if``/``with``/``try`` that bind it nowhere else
    and never out of a loop or ``scope``: the one climb of ``reaching_value`` and ``values_through_branches``.
    ``_NOTHING_BINDS`` where no answer is found; the statement of the use binding the name answers None."""
    statement: Optional[ast.AST] = scopes.parent(name)
    while statement is not None and not isinstance(statement, ast.stmt):
        statement = scopes.parent(statement)
    if statement is None or (_binds(statement, name.id) and not _read_before_rebinding(statement, name)):
        return None
    while statement is not None and statement is not scope:
        holder = scopes.parent(statement)
        block = next((b for b in _blocks_of(holder) if any(s is statement for s in b)), None) if holder is not None else None
        if block is None:
            return _NOTHING_BINDS
        found = look(block, next(i for i, s in enumerate(block) if s is statement))
        if found is not _NOTHING_BINDS:
            return found
        if holder is scope or not isinstance(holder, _STRAIGHT) or _binds_besides(holder, block, name.id):
            return _NOTHING_BINDS
        statement = holder
    return _NOTHING_BINDS


def _values_before(block: list[ast.stmt], position: int, name: str) -> Optional[list[ast.expr]]:
    """The values that reach ``block[position]`` from plain assignments of ``block`` (through its ``if``
    statements' branches); [] when nothing in ``block`` binds ``name``, None when something else does."""
    for index in range(position - 1, -1, -1):
        earlier = block[index]
        if isinstance(earlier, ast.Assign) and len(earlier.targets) == 1 and isinstance(earlier.targets[0], ast.Name) and earlier.targets[0].id == name:
            return [earlier.value]
        if isinstance(earlier, ast.AugAssign) and isinstance(earlier.target, ast.Name) and earlier.target.id == name:
            continue
        if isinstance(earlier, ast.If) and not _binds(earlier.test, name) and _binds(earlier, name):
            found: list[ast.expr] = []
            for branch in (earlier.body, earlier.orelse):
                inner = _values_before(branch, len(branch), name)
                if inner == []:  # the branch binds nothing: what reached the ``if`` goes on
                    inner = _values_before(block, index, name)
                if not inner:
                    return None
                found += inner
            return found
        if _binds(earlier, name):
            return None
    return []


def _last_plain_binding(statements: list[ast.stmt], name: str) -> Optional[ast.expr | bool]:
    """The value of the last statement of ``statements`` that binds ``name``, if it is a plain ``name =
    value``, looking into a ``with`` block, whose body always runs (``with torch.no_grad(): x = f()``); False
    if another binding comes last; None if nothing binds it."""
    for earlier in reversed(statements):
        if isinstance(earlier, ast.Assign) and len(earlier.targets) == 1 and isinstance(earlier.targets[0], ast.Name) and earlier.targets[0].id == name:
            return earlier.value if not _binds(earlier.value, name) else False
        if isinstance(earlier, (ast.With, ast.AsyncWith)) and not any(_binds(item, name) for item in earlier.items):
            inner = _last_plain_binding(earlier.body, name)
            if inner is not None:
                return inner
            continue
        if _binds(earlier, name):
            return False
    return None


def _read_before_rebinding(statement: ast.AST, name: ast.Name) -> bool:
    """``x = x[None, :]``: ``name`` is read by the value of a plain assignment to names, which binds nothing itself."""
    return (
        isinstance(statement, ast.Assign) and all(isinstance(target, ast.Name) for target in statement.targets)
        and any(node is name for node in walk(statement.value)) and not _binds(statement.value, name.id)
    )


def _binds_besides(holder: ast.AST, block: list[ast.stmt], name: str) -> bool:
    """Whether anything of ``holder`` but ``block`` binds ``name``: a walrus in an ``if``'s test, ``with ...
    as name``, a ``try``'s body seen from its ``finally`` (the other branch of an ``if`` cannot reach, but
    is read as if it could)."""
    for field_name in holder._fields:
        value = getattr(holder, field_name, None)
        parts = [] if value is block else value if isinstance(value, list) else [value]
        if any(isinstance(part, ast.AST) and _binds(part, name) for part in parts):
            return True
    return False


def _blocks_of(holder: ast.AST) -> list[list[ast.stmt]]:
    """The statement lists of a compound statement, or the body of a function, class or ``except`` clause."""
    if type(holder) in COMPOUND:
        return list(nested_blocks(holder))  # type: ignore[arg-type]
    body = getattr(holder, "body", None)
    return [body] if isinstance(body, list) else []


def _binds(node: ast.AST, name: str) -> bool:
    """Whether anything under ``node`` binds ``name``: a store, a walrus, a ``def``, an import, ``except as``."""
    for inner in walk(node):
        kind = type(inner)
        if kind is ast.Name and inner.id == name and type(inner.ctx) is not ast.Load:  # type: ignore[attr-defined]
            return True
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef) and inner.name == name:  # type: ignore[attr-defined]
            return True
        if kind in (ast.Import, ast.ImportFrom) or (kind is ast.ExceptHandler and inner.name == name):  # type: ignore[attr-defined]
            return True
    return False


def first_line(statement: ast.stmt) -> int:
    """Where a statement's text starts: its first decorator, if it has any."""
    decorators = getattr(statement, "decorator_list", None)
    return min([statement.lineno, *(decorator.lineno for decorator in decorators)]) if decorators else statement.lineno


def function_parameters(function: FunctionNode | ast.Lambda) -> list[ast.arg]:
    """Positional parameters first, in call order, then keyword-only ones."""
    arguments = function.args
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]


def _collect_bindings(scope: ast.AST, walruses: list[ast.NamedExpr]) -> ScopeBindings:
    """Bindings of one scope, from its statements alone (walrus targets come from the full walk)."""
    found = ScopeBindings()
    if isinstance(scope, COMPREHENSIONS):
        for generator in scope.generators:
            _bind_target(found, generator.target, "element", generator.iter, ())
        return found
    if isinstance(scope, (*FUNCTIONS, ast.Lambda)):
        for parameter in function_parameters(scope):
            found.add(parameter.arg, Binding("parameter", parameter))
        for rest in (scope.args.vararg, scope.args.kwarg):
            if rest is not None:
                found.add(rest.arg, Binding("opaque", rest))
    if not isinstance(scope, ast.Lambda):
        pending: list[list[ast.stmt]] = [scope.body]  # type: ignore[attr-defined]
        while pending:
            for statement in pending.pop():
                _bind_statement(found, statement)
                if type(statement) in COMPOUND:
                    pending.extend(nested_blocks(statement))
    for walrus in walruses:
        found.add(walrus.target.id, Binding("value", walrus.value))
    return found


def _bind_statement(found: ScopeBindings, node: ast.stmt) -> None:
    if isinstance(node, ast.Assign):
        for target in node.targets:
            _bind_target(found, target, "value", node.value, ())
    elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        found.add(node.target.id, Binding("annotated", node.annotation))
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        _bind_target(found, node.target, "element", node.iter, ())
    elif isinstance(node, (*FUNCTIONS, ast.ClassDef)):
        found.add(node.name, Binding("def" if isinstance(node, FUNCTIONS) else "opaque", node))
    elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        found.add(node.target.id, Binding("opaque", node))
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        for item in node.items:
            if item.optional_vars is not None:
                _bind_target(found, item.optional_vars, "opaque", item, ())
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        for alias in node.names:
            found.add(alias.asname or alias.name.partition(".")[0], Binding("opaque", node))
    elif isinstance(node, ast.Global):
        found.declared_global.update(node.names)
    elif isinstance(node, ast.Nonlocal):
        for name in node.names:
            found.add(name, Binding("opaque", node))
    for handler in getattr(node, "handlers", ()):
        if handler.name:
            found.add(handler.name, Binding("opaque", handler))
    for case in getattr(node, "cases", ()):
        for pattern in walk(case.pattern):
            if isinstance(pattern, _MATCH_CAPTURES) and pattern.name:
                found.add(pattern.name, Binding("opaque", pattern))
            elif isinstance(pattern, _MATCH_MAPPINGS) and pattern.rest:
                found.add(pattern.rest, Binding("opaque", pattern))


def _bind_target(found: ScopeBindings, target: ast.AST, how: str, source: ast.AST, path: tuple[int, ...]) -> None:
    if isinstance(target, ast.Name):
        found.add(target.id, Binding(how, source, path))
    elif isinstance(target, (ast.Tuple, ast.List)):
        starred = False
        for index, element in enumerate(target.elts):
            starred = starred or isinstance(element, ast.Starred)
            if starred:  # positions after a starred target are not known statically
                _bind_target(found, getattr(element, "value", element), "opaque", source, ())
            else:
                _bind_target(found, element, how, source, (*path, index))
    elif isinstance(target, ast.Starred):
        _bind_target(found, target.value, "opaque", source, ())


def returned_function(factory: FunctionNode) -> Optional[FunctionNode | ast.Lambda]:
    """What a hook factory returns, when every ``return`` of its own gives one function it defines (``def
    hook(...): ...; return hook``) or one lambda: the hook each call of the factory makes."""
    nested = {statement.name: statement for statement in factory.body if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))}
    returned: list[Optional[ast.AST]] = []
    pending = [factory.body]
    while pending:  # its own statements: not those of the functions it defines
        for statement in pending.pop():
            if type(statement) in COMPOUND:
                pending.extend(nested_blocks(statement))
            if not isinstance(statement, ast.Return):
                continue
            value = statement.value
            returned.append(nested.get(value.id) if isinstance(value, ast.Name) else value if isinstance(value, ast.Lambda) else None)
    return returned[0] if returned and all(found is not None and found is returned[0] for found in returned) else None  # type: ignore[return-value]


def top_level_spans(tree: ast.Module) -> list[tuple[int, int]]:
    """The first and last lines of each run of top-level statements, statements that share a line
    (``a = 1; b = 2``) joined into one run: each run starts where no token is open (``# noqa`` groups
    lines within one)."""
    spans: list[tuple[int, int]] = []
    for statement in tree.body:
        start, end = first_line(statement), statement.end_lineno or statement.lineno
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))
    return spans
