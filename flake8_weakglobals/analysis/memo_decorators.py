"""Decorators that memoise by hand, in their own closure: ``cached = deque(maxlen=4)`` (or a dict) bound in
the decorator and filled by the wrapper it returns with the call's arguments or result, or a slot of the
closure the wrapper rebinds to them through ``nonlocal`` (``last_args, last_result = args, result``: a cache
of one call).

Each decorated function gets one such container or slot, and it lives as long as the function: for a
function at module level, the process. It keeps the last calls' tensors as ``lru_cache`` would, yet no cache
decorator shows it (fla's ``tensor_cache``, in both its forms). Found from statements alone: a module-level
function with a local bound to a container (or to anything, for a slot), a nested function it returns that
calls the decorated function (the decorator's first parameter), and a fill of that local there with what the
nested function was called with or computed.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator, Optional

from ..syntax.container_expressions import ContainerType, classify
from ..syntax.qualified_names import Names
from ..syntax.scopes import FUNCTIONS, FunctionNode, function_parameters, module_level, walk

#: Methods that put what they are given into a container.
_FILLS = frozenset({"append", "appendleft", "add", "insert", "setdefault", "__setitem__"})


@dataclass(frozen=True)
class MemoDecorator:
    decorator: FunctionNode
    wrapper: FunctionNode
    container: str  # the closure's local
    made: ast.expr  # what binds it (``deque(maxlen=N)``); for a slot, the name as the decorator first binds it
    fill: ast.AST  # the statement of the wrapper that fills it
    slot: bool = False  # a slot rebound to the last call's objects, not a container of many


def memo_decorators(tree: ast.Module, names: Names) -> Iterator[MemoDecorator]:
    """Each module-level decorator of this module that memoises its calls in a container of its closure."""
    for statement in module_level(tree.body):
        if isinstance(statement, FUNCTIONS) and function_parameters(statement):
            found = _memoising(statement, names)
            if found is not None:
                yield found


def _memoising(decorator: FunctionNode, names: Names) -> Optional[MemoDecorator]:
    made: dict[str, ast.expr] = {}  # the closure's containers
    bound: dict[str, ast.expr] = {}  # every local the decorator binds (its target): a slot, if a wrapper rebinds it
    for statement in decorator.body:
        target = statement.targets[0] if isinstance(statement, ast.Assign) and len(statement.targets) == 1 else (
            statement.target if isinstance(statement, ast.AnnAssign) else None
        )
        if not (isinstance(target, ast.Name) and statement.value is not None):  # type: ignore[union-attr]
            continue
        bound.setdefault(target.id, target)
        constructor = classify(statement.value, names)  # type: ignore[union-attr]
        if constructor is not None and constructor.type is not ContainerType.PLACEHOLDER:
            made[target.id] = statement.value  # type: ignore[union-attr]
    returned = {statement.value.id for statement in decorator.body if isinstance(statement, ast.Return) and isinstance(statement.value, ast.Name)}
    wrapped = function_parameters(decorator)[0].arg
    for wrapper in decorator.body:
        if not (isinstance(wrapper, FUNCTIONS) and wrapper.name in returned and bound and _calls(wrapper, wrapped)):
            continue  # a closure factory that never calls what it was given is no decorator (``make_init_fn(model)``)
        called_with = _called_with(wrapper)
        slots = _nonlocal(wrapper) & bound.keys()
        for node in walk(wrapper):
            filled = _filled(node)
            if filled is not None and filled[0] in made and _mentions(filled[1], called_with):
                return MemoDecorator(decorator, wrapper, filled[0], made[filled[0]], node)
            slot = _slot_set(node, slots, called_with)
            if slot is not None:
                return MemoDecorator(decorator, wrapper, slot, bound[slot], node, slot=True)
    return None


def _nonlocal(wrapper: FunctionNode) -> set[str]:
    """The closure's names the wrapper rebinds (``nonlocal last_args, last_result``)."""
    return {name for node in walk(wrapper) if isinstance(node, ast.Nonlocal) for name in node.names}


def _slot_set(node: ast.AST, slots: set[str], called_with: set[str]) -> Optional[str]:
    """The slot an assignment rebinds to what the wrapper was called with or computed: ``last = (args, out)``,
    or each name of ``last_args, last_result = args, result`` with its own value."""
    if not (slots and isinstance(node, ast.Assign)):
        return None
    pairs: list[tuple[ast.expr, ast.expr]] = []
    for target in node.targets:
        if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) and len(target.elts) == len(node.value.elts):
            pairs.extend(zip(target.elts, node.value.elts))
        else:
            pairs.append((target, node.value))
    return next((t.id for t, value in pairs if isinstance(t, ast.Name) and t.id in slots and _mentions([value], called_with)), None)


def _calls(wrapper: FunctionNode, name: str) -> bool:
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name for node in walk(wrapper))


def _called_with(wrapper: FunctionNode) -> set[str]:
    """The wrapper's parameters (``args``, ``kwargs``), and the locals it binds from a call (``result =
    fn(*args)``)."""
    arguments = wrapper.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
    found = {argument.arg for argument in every if argument is not None}
    for node in walk(wrapper):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            found.update(target.id for target in node.targets if isinstance(target, ast.Name))
    return found


def _filled(node: ast.AST) -> Optional[tuple[str, list[ast.expr]]]:
    """``C.append(x)``, ``C[k] = v``: the container's name and what goes in (keys and values)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _FILLS:
        owner = node.func.value
        return (owner.id, list(node.args)) if isinstance(owner, ast.Name) else None
    if isinstance(node, ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                return target.value.id, [target.slice, node.value]
    return None


def _mentions(stored: list[ast.expr], called_with: set[str]) -> bool:
    return any(isinstance(node, ast.Name) and node.id in called_with for expr in stored for node in walk(expr))
