"""The routes to a function other than a call naming it (``analysis/call_routes.py``), which the owner
proof refuses to trust: decorators that are handed the function, and strings that name it."""
from __future__ import annotations

import ast
import textwrap

from flake8_weakglobals.analysis.call_routes import handing_decorator, strings_naming
from flake8_weakglobals.syntax.qualified_names import Names


def _definition(source: str) -> tuple[ast.AST, Names]:
    tree = ast.parse(textwrap.dedent(source))
    names = Names()
    for statement in tree.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            names.add_import(statement, module_level=True)
    return next(s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.ClassDef))), names


def test_a_registrar_decorator_is_a_route_and_torch_s_own_decorators_are_not() -> None:
    handed, names = _definition("""
        import torch
        @torch.no_grad()
        @HANDLERS.register("linear")
        def remember(layer): ...
    """)
    assert ast.unparse(handing_decorator(handed, names)) == "HANDLERS.register('linear')"  # type: ignore[arg-type]
    plain, names = _definition("""
        import functools, torch
        @staticmethod
        @torch.no_grad()
        @functools.wraps(other)
        def remember(layer): ...
    """)
    assert handing_decorator(plain, names) is None


def test_a_property_s_setter_is_no_route() -> None:
    setter, names = _definition("""
        @width.setter
        def width(self, value): ...
    """)
    assert handing_decorator(setter, names) is None


def test_a_registered_class_is_handed_to_its_decorator() -> None:
    registered, names = _definition("""
        @register_model("gpt")
        class GPT: ...
    """)
    assert handing_decorator(registered, names) is not None


def test_strings_that_name_a_function_whole_or_by_its_import_path() -> None:
    tree = ast.parse(textwrap.dedent('''
        """Docstring: remember what is added."""
        __all__ = ["exported"]
        CONFIG = {"_target_": "pkg.hooks.observe", "entry": "pkg.hooks:start"}
        def build(layer: "Annotated") -> "Returned":
            getattr(REGISTRY, "add")(layer)
            log("Engine")
            print("audit", layer)
            logger.info("shrink")
            warnings.warn("grow")
            raise ValueError("explode")
            return f"{layer}unseen"
    '''))
    found = strings_naming(tree)
    assert {"observe", "start", "add", "Engine"} <= set(found)
    assert not {"exported", "Annotated", "Returned", "remember"} & set(found)
    assert not {"audit", "shrink", "grow", "explode", "unseen"} & set(found)  # text for people: printed, logged, raised
    assert found["add"] == 6
    assert set(strings_naming(tree, paths_only=True)) == {"observe", "start"}  # a bare ``"Engine"`` is a label
