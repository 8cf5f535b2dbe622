"""What a function's type guards say a name or an attribute of its receiver is.

A class that raises unless what it keeps is of a type declares what its instances hold, as an annotation
would: fairseq's optimizer wrapper checks ``if not isinstance(self._optimizer, torch.optim.Optimizer): raise
ValueError(...)`` before every use, and its scheduler checks the optimizer it is handed before storing it.
Read by the project index (``summaries``: classes of other modules) and by the evidence (the module's own
classes), one reading for both.
"""
from __future__ import annotations

import ast
from collections import deque
from typing import Iterator

from .scopes import COMPOUND, FunctionNode, nested_blocks


def guarded_types(function: FunctionNode) -> dict[str, tuple[list[ast.expr], int]]:
    """The types each guard of ``function`` allows, keyed by the guarded name or attribute as written (``x``,
    ``self._optimizer``), with the guard's line: ``assert isinstance(x, T)``, and an ``if`` whose test says
    ``not isinstance(x, T)`` (alone, or beside ``x is not None and``) and whose body raises. A tuple of types
    gives each of them. The first guard of a name counts; nested functions and classes are not entered."""
    found: dict[str, tuple[list[ast.expr], int]] = {}
    for statement in _own_statements(function.body):
        if isinstance(statement, ast.Assert):
            test = _isinstance_test(statement.test)
        elif isinstance(statement, ast.If) and statement.body and isinstance(statement.body[-1], ast.Raise):
            test = next((t for part in conjuncts(statement.test) if (t := _negated_isinstance(part)) is not None), None)
        else:
            continue
        if test is not None:
            guarded, types = test
            found.setdefault(guarded, (types, statement.lineno))
    return found


def guarded_attributes(method: FunctionNode) -> Iterator[tuple[str, list[ast.expr], int]]:
    """The attributes of its receiver (its first parameter) that a method's guards check, with the types
    they allow and the guard's line: ``self._optimizer`` in ``if not isinstance(self._optimizer, T): raise``."""
    parameters = [*method.args.posonlyargs, *method.args.args]
    if not parameters:
        return
    for guarded, (types, line) in guarded_types(method).items():
        owner, _, attribute = guarded.partition(".")
        if owner == parameters[0].arg and attribute:
            yield attribute, types, line


def _own_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    pending = deque([body])
    while pending:
        for statement in pending.popleft():
            yield statement
            if type(statement) in COMPOUND:
                pending.extend(nested_blocks(statement))


def conjuncts(test: ast.expr) -> list[ast.expr]:
    """The parts of ``a and b and c``, nested ``and``s flattened; any other test is its only part."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [part for value in test.values for part in conjuncts(value)]
    return [test]


def _negated_isinstance(test: ast.expr) -> tuple[str, list[ast.expr]] | None:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _isinstance_test(test.operand)
    return None


def _isinstance_test(test: ast.expr) -> tuple[str, list[ast.expr]] | None:
    """``isinstance(x, T)`` or ``isinstance(self.x, (A, B))``: the guarded expression as written, and the types."""
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" and len(test.args) == 2):
        return None
    subject, types = test.args
    if isinstance(subject, ast.Name):
        guarded = subject.id
    elif isinstance(subject, ast.Attribute) and isinstance(subject.value, ast.Name):
        guarded = f"{subject.value.id}.{subject.attr}"
    else:
        return None
    return guarded, list(types.elts) if isinstance(types, ast.Tuple) else [types]
