"""WG007 on what library code builds at import: a module-level name or class attribute bound, as the module
is imported, to tensors or modules it builds right there (``EPS = torch.tensor(1e-6)``, ``_LOSS =
nn.BCELoss()``, ``COLORS = {"white": torch.ones(3)}``, ``class Task: DEFAULT_LOSS = nn.BCELoss()``).

A module is imported once and kept for the process, and so is a class: what it binds at import is memory
the process keeps, whether or not any model still uses it, and on the GPU when it is built there. It is the
workspace of WG007 made eagerly instead of on first use, and as often kept on purpose: the finding says
where it is and ``# noqa: WG007`` says it is meant.

Not reported: a program's globals (its run's own state, gone when it exits), a test module's tables (its
parametrize lists and fixtures' data) and an example's (a module of an ``examples``, ``tutorials`` or
``docs`` package: a demo's objects, or a case table as torch's export examples), a module that works with
the object as it is imported (a tutorial, ``model = Net()`` then ``model(x)`` at the top level), what is
derived from the module's own objects
(``X[0]``, ``X.cuda()``: the object it comes from is reported), a name a function of the module sets back
(``X = None``) or swaps (``global X``), a name the module binds more than once or computes from one (its
running state; ``model = model.to(device)``, a conversion of its own object, is no second binding), an
object that only holds framework objects (its state is WG011's), and what a loop or an
``if __name__ == "__main__":`` block binds.
"""
from __future__ import annotations

import ast
import sys
from collections import Counter
from typing import Callable, Iterator, Optional

from ..analysis.evidence import Evidence, Obj, Seq, Tup, Value
from ..analysis.framework_types import MODULE, PARAMETER, TENSOR, tensor_valued
from ..analysis.survey import Survey
from ..index.summaries import chain_start
from ..syntax.qualified_names import Names
from ..syntax.scopes import COMPOUND, is_main_guard, module_level, names_read_by, nested_blocks, walk
from . import codes
from .findings import Evidence as Proof, Finding

#: Imports that make a module part of a test suite: what it builds at import is its tests' own data.
_TEST_FRAMEWORKS = frozenset({"pytest", "unittest"})
#: What can build an object in the statement that binds it: a call, a display of calls, or an item or a view
#: of what a call builds (``torch.eye(4)[:3, :]``). A name, a constant or a lambda builds nothing; a
#: comprehension runs over the module's own objects.
_BUILDING = (ast.Call, ast.Dict, ast.List, ast.Tuple, ast.Set, ast.Subscript, ast.BinOp)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
#: The standard library's top-level modules (Python 3.10+; before, every call is asked about, which costs
#: time and changes no finding).
_STANDARD_LIBRARY: frozenset[str] = getattr(sys, "stdlib_module_names", frozenset())
#: What is reported: objects that are memory themselves, not ones that may come to hold some (an empty fx
#: graph, an optimizer over another module-level model's parameters).
_FRAMEWORK_OBJECTS = frozenset({MODULE, PARAMETER, TENSOR})


def judge_kept_from_import(module: ast.Module, survey: Survey, evidence_of: Callable[[], Evidence]) -> list[Finding]:
    """WG007 for each module-level name and class attribute of a library module bound at import to
    framework objects built in that statement; none at all where the module works with one of them as it
    runs (a tutorial: ``model = Net()``, then ``model(x)`` at the top level)."""
    if survey.is_a_program or _is_a_test_module(module) or survey.imported.among_tests_or_examples():
        return []
    set_back = {store.name for store in survey.slot_stores if store.sets_back}
    running: Optional[set[str]] = None  # read once, and only for a module that binds something by a call
    found: list[Finding] = []
    for owner, statement in _bindings_at_import(module):
        targets = _targets(statement)
        names = [target for target in targets if isinstance(target, ast.Name)]
        if not names or len(names) < len(targets) or statement.value is None:
            continue
        qualified = [f"{owner.name}.{target.id}" if owner is not None else target.id for target in names]
        if any(name in set_back or name in survey.global_names for name in qualified) or not isinstance(statement.value, _BUILDING):
            continue  # a function may let it go or swap it: WG012 and WG007 judge what functions put there
        if not _may_build(statement.value, survey):
            continue  # ``logger = logging.getLogger(__name__)``: asked of nothing but the standard library
        running = _running_state(module, survey) if running is None else running
        if any(name in running for name in qualified) or any(node.id in running for node in _made_from(statement.value, survey)):
            continue  # the module's running state: ``x = f(x)``, or made from it
        parts = [key for key in statement.value.keys if key is not None] if isinstance(statement.value, ast.Dict) else []
        built = _built_here(evidence_of().of(statement.value)) or next(
            (keyed for key in parts if (keyed := _built_here(evidence_of().of(key))) is not None), None
        )  # a map keyed by what it builds (``{nn.ReLU(): "relu"}``)
        if built is not None and built.kind in _FRAMEWORK_OBJECTS:
            found.append(_finding(names[0], qualified[0], owner, built))
    if found and _worked_with_at_import(module, survey.names) & {finding.name for finding in found if finding.scope == "module"}:
        return []  # the module works with what it builds as it runs: a program's (a tutorial's) own objects
    return found


def _may_build(value: ast.expr, survey: Survey) -> bool:
    """Whether the value calls something that may build a framework object where it is bound (itself, an
    item of a display, the receiver of a method chain, an operand): torch's factories and framework classes
    and their ``from_*`` constructors (not the rest of torch: ``torch.library.Library``, ``torch._C``
    calls), a class of this module that is a framework type, a function of this module, or a name imported
    from outside torch and the standard library (a project's or another package's). Most calls a module
    makes at import are neither (``logging.getLogger``, ``TypeVar``, ``torch.fx.wrap``), and the evidence is
    not asked about them."""
    functions, _ = tensor_valued()
    pending = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Call):
            qualified = survey.names.qualify(node.func)
            if qualified is None and isinstance(node.func, ast.Name):
                info = survey.classes.get(node.func.id)
                if info is None or info.kind is not None:
                    return True  # a function of the module, or one of its framework classes
            elif qualified is not None and qualified.startswith("torch."):
                if survey.imported.vocabulary.kind_of_call(qualified) is not None or qualified in functions:
                    return True
                constructor, _, named = qualified.rpartition(".")
                if named.startswith("from_") and survey.imported.vocabulary.kind_of_call(constructor) is not None:
                    return True  # a framework class's alternative constructor: ``nn.Embedding.from_pretrained(vectors)``
            elif qualified is not None and qualified.partition(".")[0] not in _STANDARD_LIBRARY:
                return True
            if isinstance(node.func, ast.Attribute):
                pending.append(node.func.value)  # ``torch.ones(4).cuda()``
        elif isinstance(node, ast.Dict):
            pending.extend(part for part in (*node.keys, *node.values) if part is not None)
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            pending.extend(node.elts)
        elif isinstance(node, ast.BinOp):
            pending.extend((node.left, node.right))
        elif isinstance(node, (ast.UnaryOp, ast.Subscript, ast.Attribute, ast.Starred)):
            pending.append(node.operand if isinstance(node, ast.UnaryOp) else node.value)
    return False


def _running_state(module: ast.Module, survey: Survey) -> set[str]:
    """The module-level names bound more than once as the module runs (``x = f(x)``, a loop's variable), and
    those computed from them, in the order they are bound: the module's running state, not objects it keeps
    as they were built. Asking what each is would follow every binding of every name it is made from (a
    pattern table that rebinds its names eight times each asks 8^n questions). What a framework factory
    builds from them is new (``_made_from``)."""
    bound = Counter(
        node.id for statement in module_level(module.body) if not _converts_itself(statement) for target in _targets(statement)
        for node in walk(target) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    )
    running = {name for name, times in bound.items() if times > 1}
    for statement in module_level(module.body):
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None and not _converts_itself(statement):
            if any(node.id in running for node in _made_from(statement.value, survey)):
                running.update(node.id for target in _targets(statement) for node in walk(target) if isinstance(node, ast.Name))
    return running


def _made_from(value: ast.expr, survey: Survey) -> Iterator[ast.Name]:
    """The names a value's object is made from: not what a framework factory or class is handed, nor a
    method's arguments. ``torch.from_numpy(colors).to(device) / 255`` is a new tensor whichever of its
    bindings ``colors`` and ``device`` (chosen on ``if``/``else`` branches) hold; ``torch.cat([a, b])``,
    ``np.frombuffer(x)`` and ``f(x)`` are made from their arguments."""
    pending: list[ast.AST] = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Call):
            qualified = survey.names.qualify(node.func)
            if qualified is not None and survey.imported.vocabulary.kind_of_call(qualified) is not None:
                continue
            if qualified is None and isinstance(node.func, ast.Attribute):
                pending.append(node.func.value)  # ``x.to(device)``: the receiver's object, converted
                continue
        elif isinstance(node, ast.Name):
            yield node
        pending.extend(ast.iter_child_nodes(node))


def _converts_itself(statement: ast.stmt) -> bool:
    """``model = model.to(device)``, ``model = model.eval()`` (as a module sets a model up for the machine at
    import, under ``if torch.cuda.is_available():``): a rebinding to the name's own object put through
    conversions that return it, or a moved copy of a tensor. The name still holds what the module built;
    it is no running state."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)):
        return False
    start = chain_start(statement.value)
    return start is not statement.value and isinstance(start, ast.Name) and start.id == statement.targets[0].id


def _targets(statement: ast.stmt) -> list[ast.expr]:
    """What a statement of a block binds by assignment: an assignment's targets, a loop's, a ``with``'s."""
    if isinstance(statement, ast.Assign):
        return statement.targets
    if isinstance(statement, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
        return [statement.target]
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        return [item.optional_vars for item in statement.items if item.optional_vars is not None]
    return []


def _worked_with_at_import(module: ast.Module, names: Names) -> set[str]:
    """The names the module works with as it runs, outside its functions and classes: read by any statement
    but an assignment (``print(x)``, ``for batch in loader:``) or anywhere in a loop, and in an assignment's
    value called, themselves or through a method (``out = model(x)``, ``opt = SGD(model.parameters())``), or
    handed to a call (``fast = torch.compile(model)``). Deriving another of the module's tensors from one is
    no work: a torch function or a ``Tensor`` method that returns a tensor (``ON_GPU = TABLE.cuda()``,
    ``BOTH = torch.cat([A, B])``, as torch's stubs declare them); nor is converting one in place as the module
    sets it up (``model = model.eval()``)."""
    functions, methods = tensor_valued()
    worked_with: set[str] = set()
    for statement in module_level(module.body):
        if isinstance(statement, _LOOPS):  # what a loop at the top level reads, it works with
            worked_with |= _read_in_a_loop(statement)
        if not isinstance(statement, (ast.Assign, ast.AnnAssign)):
            worked_with |= names_read_by(statement)
            continue
        if _converts_itself(statement):
            continue  # ``model = model.eval()``: set up, not used
        for node in walk(statement.value) if statement.value is not None else ():
            if not isinstance(node, ast.Call) or (isinstance(node.func, ast.Attribute) and node.func.attr in methods):
                continue
            if names.qualify(node.func) in functions:
                continue
            callee = node.func.value if isinstance(node.func, ast.Attribute) else node.func
            arguments = [*node.args, *(keyword.value for keyword in node.keywords)]
            worked_with.update(name.id for part in [callee, *arguments] for name in walk(part) if isinstance(name, ast.Name))
    return worked_with


def _read_in_a_loop(loop: ast.stmt) -> set[str]:
    """The names a top-level loop reads, but for a name it only fills item by item (``coord[0, i, j] = i /
    127``): a tensor the module builds element-wise as it sets it up is not one it works with."""
    filled = {id(target.value) for node in walk(loop) if isinstance(node, (ast.Assign, ast.AugAssign))
              for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
              if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)}
    return {node.id for node in walk(loop) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in filled}


def _is_a_test_module(module: ast.Module) -> bool:
    """A module of a test suite: it imports pytest or unittest, or defines ``test_*`` functions or ``Test*``
    classes at its top level."""
    for statement in module.body:
        if isinstance(statement, ast.Import) and any(alias.name.partition(".")[0] in _TEST_FRAMEWORKS for alias in statement.names):
            return True
        if isinstance(statement, ast.ImportFrom) and (statement.module or "").partition(".")[0] in _TEST_FRAMEWORKS and not statement.level:
            return True
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name.startswith("test_"):
            return True
        if isinstance(statement, ast.ClassDef) and statement.name.startswith("Test"):
            return True
    return False


def _bindings_at_import(module: ast.Module) -> Iterator[tuple[Optional[ast.ClassDef], ast.Assign | ast.AnnAssign]]:
    """The assignments that run once, as the module is imported: its body and the blocks of its ``if``,
    ``try`` and ``with`` statements (not a loop's, which a program runs, nor a ``__main__`` block), and the
    bodies of its top-level classes; each with the class whose body binds it (None for the module)."""
    pending = [module.body]
    while pending:
        for statement in pending.pop():
            if isinstance(statement, (ast.Assign, ast.AnnAssign)):
                yield None, statement
            elif isinstance(statement, ast.ClassDef):
                yield from ((statement, inner) for inner in statement.body if isinstance(inner, (ast.Assign, ast.AnnAssign)))
            elif type(statement) in COMPOUND and not isinstance(statement, _LOOPS) and not is_main_guard(statement):
                pending.extend(nested_blocks(statement))


def _built_here(value: Value) -> Optional[Obj]:
    """The first framework object the bound value builds right there, itself or as an item of a tuple, list
    or record it builds; None for what derives from the module's other objects or was built elsewhere, and
    for an object that only holds framework objects (``Tracker()``: what its methods store later is WG011's)."""
    if isinstance(value, Obj):
        return value if value.owned and not value.module_held and not value.from_foreign and not value.holds else None
    if isinstance(value, Seq):
        return _built_here(value.element)
    if isinstance(value, Tup):
        return next((built for item in value.items if (built := _built_here(item)) is not None), None)
    return None


def _finding(target: ast.Name, name: str, owner: Optional[ast.ClassDef], built: Obj) -> Finding:
    place, kind = ("class", "attribute") if owner is not None else ("module-level", "name")
    evidence = f"({built.cited(target.lineno)}, at import), for the rest of the process"
    proof = Proof(built.line or target.lineno, built.why)
    return codes.workspace(target, name, kind, place, "class" if owner is not None else "module", built.kind, proof, evidence)
