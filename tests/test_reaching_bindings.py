"""``scopes.reaching_value``: the one plain assignment that reaches a use in straight-line code, or nothing
when another binding may reach it (a loop, a ``with ... as``, a walrus, a ``try``'s body seen from its
``finally``, an unpacking)."""
from __future__ import annotations

import ast

import pytest

from flake8_weakglobals.syntax.scopes import Scopes, reaching_value

SOURCE = '''
def f(a, parts):
    x = []
    x = torch.cat(x)
    joined = x
    with open(a) as x:
        opened = x
    try:
        x = a
    finally:
        after_try = x
    if (x := a):
        walrus = x
    y = 1
    if a:
        y = 2
        branch = y
    for z in parts:
        z = z.float()
        looped = z
    w = 1
    w, v = a
    unpacked = w
    u = 1
    u += 1
    augmented = u
'''

EXPECTED = {
    "joined": "torch.cat(x)",
    "opened": None,
    "after_try": None,
    "walrus": None,
    "branch": "2",
    "looped": "z.float()",
    "unpacked": None,
    "augmented": None,
}


@pytest.mark.parametrize("target", sorted(EXPECTED))
def test_the_binding_that_reaches_a_use(target: str) -> None:
    tree = ast.parse(SOURCE)
    function = tree.body[0]
    scopes = Scopes(tree)
    use = next(node for node in ast.walk(function) if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id == target)
    found = reaching_value(scopes, use.value, function)
    assert (ast.unparse(found) if found is not None else None) == EXPECTED[target]


REBINDING = '''
def g(a, parts):
    x = torch.full((2, 2), 0.0)
    x = x[None, :]
    y = torch.zeros(2)
    for p in parts:
        y = y[None]
    w = torch.zeros(2)
    w, v = w, a
'''


@pytest.mark.parametrize(("name", "expected"), [("x", "torch.full((2, 2), 0.0)"), ("y", None), ("w", None)])
def test_a_plain_assignment_reads_its_name_before_rebinding_it(name: str, expected: str | None) -> None:
    """``x = x[None, :]`` reads the ``x`` that reached it (MInference's ``SEARCH_MASK``, sweep 14); in a loop,
    or in an unpacking, it may be another."""
    tree = ast.parse(REBINDING)
    function = tree.body[0]
    scopes = Scopes(tree)
    rebinding = next(
        node for node in ast.walk(function)
        if isinstance(node, ast.Assign) and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node.targets[0]))
        and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node.value))
    )
    read = next(n for n in ast.walk(rebinding.value) if isinstance(n, ast.Name) and n.id == name)
    found = reaching_value(scopes, read, function)
    assert (ast.unparse(found) if found is not None else None) == expected
