"""``syntax.scopes.walk`` stands in for ``ast.walk`` in every pass of the analysis: the same nodes in the same
order (breadth first), or a pass that stops at the first match would find another node."""
from __future__ import annotations

import ast

import pytest
import torch

from conftest import REPO
from flake8_weakglobals.syntax.scopes import walk

EVERY_SHAPE = '''
match command:
    case {"go": [x, *rest]} | Point(x=0) if x > 1:
        print(f"{x!r:>{width}}", *rest)
    case _:
        pass
async def f(a, /, b=1, *args, c: int = 2, **kw) -> "T":
    async with lock as (p, q):
        return [y async for y in g if y] or {k: v for k, v in kw.items()} or (lambda z=3: z)()
try:
    del a[1:2, ::3]
except* ValueError as error:
    raise error from None
@decorator(x := 1)
class C(Base, metaclass=Meta):
    t: tuple[int, ...] = ()
'''


def test_the_walk_yields_what_ast_walk_yields_in_its_order() -> None:
    trees = [ast.parse(EVERY_SHAPE)]
    trees += [ast.parse(path.read_text(encoding="utf-8")) for path in sorted((REPO / "flake8_weakglobals").rglob("*.py"))]
    trees += [ast.parse(open(torch.nn.modules.module.__file__, encoding="utf-8").read())]
    for tree in trees:
        assert [id(node) for node in walk(tree)] == [id(node) for node in ast.walk(tree)]


@pytest.mark.parametrize("expression", ["f(x)[y].z", "[a for b in c if d]", "-x ** 2 < y"])
def test_an_expression_is_walked_from_itself(expression: str) -> None:
    node = ast.parse(expression, mode="eval").body
    assert list(walk(node)) == list(ast.walk(node))
