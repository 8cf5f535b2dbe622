"""Qualified names through a module's imports: ``nn.Linear`` is ``torch.nn.Linear`` after ``from torch import nn``.

The analysis never trusts what a name looks like; it asks what the name was imported as.
"""
from __future__ import annotations

import ast
import builtins
from typing import Callable, Optional

_BUILTINS = frozenset(dir(builtins))
#: ``cast(T, value)``: the value itself, whatever ``T`` says (Python 3.10+ has ``typing_extensions``' too).
CASTS = frozenset({"typing.cast", "typing_extensions.cast"})


class Names:
    """Import aliases of one module, and the module-level names that shadow builtins."""

    def __init__(self) -> None:
        self._aliases: dict[str, str] = {}
        self._module_names: set[str] = set()
        self._stars: list[Callable[[], list[tuple[str, str]]]] = []  # star imports not read yet

    def add_import(self, node: ast.Import | ast.ImportFrom, *, module_level: bool) -> None:
        """Record the names an import binds; imports inside functions never override module-level ones."""
        for alias in node.names:
            if alias.name == "*":
                continue
            if isinstance(node, ast.Import):
                local = alias.asname or alias.name.partition(".")[0]
                target = alias.name if alias.asname else local
            else:
                local = alias.asname or alias.name
                prefix = "." * node.level + (node.module or "")
                target = f"{prefix}.{alias.name}" if node.module else f"{prefix}{alias.name}"
            if module_level:
                self._aliases[local] = target
            else:
                self._aliases.setdefault(local, target)

    def add_star_import(self, names: Callable[[], list[tuple[str, str]]]) -> None:
        """``from module import *``: ``names()`` lists what it binds, each with what that module imported it
        as (or its own name there). It is called only when a name is not known otherwise, so a star import
        of a project module costs its summary only in a module that asks about such a name. Explicit
        imports win over star-bound names."""
        self._stars.append(names)

    def _read_stars(self) -> None:
        stars, self._stars = self._stars, []
        for names in stars:
            for name, target in names():
                self._aliases.setdefault(name, target)

    def add_module_name(self, name: str) -> None:
        """A name bound at module level by other means (``def``, ``class``, assignment): not a builtin."""
        self._module_names.add(name)

    def defines(self, name: str) -> bool:
        """Whether the module binds ``name`` itself, other than by importing it."""
        return name in self._module_names and name not in self._aliases

    def is_imported(self, name: str) -> bool:
        """Whether an explicit import binds ``name`` (star imports are not read for this)."""
        return name in self._aliases

    def imported_from(self, name: str) -> Optional[str]:
        """The module ``name`` is imported from (``mylib.weak`` for ``from mylib.weak import WeakIdMap``)."""
        target = self._alias(name)
        return target.rpartition(".")[0] if target is not None and "." in target else None

    def spellings(self, prefixes: tuple[str, ...]) -> set[str]:
        """The imported names through which a dotted name starting with one of ``prefixes`` can be written:
        those bound to such a name, or to a module above one (``torch`` for ``torch.save``). A line that
        spells none of them (and no builtin) cannot name one, so a search can skip it."""
        return {local for local, target in self._aliases.items()
                if target.startswith(prefixes) or any(prefix.startswith(f"{target}.") for prefix in prefixes)}

    def qualify(self, expr: ast.expr) -> Optional[str]:
        """``torch.nn.Linear`` for ``nn.Linear``, ``builtins.dict`` for ``dict``; None when unknown."""
        if isinstance(expr, ast.Attribute):
            base = self.qualify(expr.value)
            return f"{base}.{expr.attr}" if base else None
        if isinstance(expr, ast.Name):
            if (target := self._alias(expr.id)) is not None:
                return target
            if expr.id in _BUILTINS and expr.id not in self._module_names:
                return f"builtins.{expr.id}"
        return None

    def _alias(self, name: str) -> Optional[str]:
        """What ``name`` was imported as; star imports are read at the first name that needs them (a
        module's own names and builtins never do)."""
        if name not in self._aliases and self._stars and name not in self._module_names and name not in _BUILTINS:
            self._read_stars()
        return self._aliases.get(name)


def is_our_runtime(module: str) -> bool:
    """``flake8_weakglobals.runtime`` or a vendored copy of it (``pkg._weakglobals_runtime``)."""
    return module == "flake8_weakglobals.runtime" or module.rpartition(".")[2] == "_weakglobals_runtime"


def base_class(base: ast.expr) -> ast.expr:
    """The class a base names: ``Base`` for ``Base[T]`` (a generic base), the base itself otherwise."""
    return base.value if isinstance(base, ast.Subscript) else base


#: What makes a class a record: its class-body annotations are the fields its constructor stores in each
#: instance, and their values only defaults.
RECORD_DECORATORS = frozenset({"dataclasses.dataclass", "attr.s", "attr.attrs", "attr.define", "attrs.define", "attr.frozen", "attrs.frozen"})
RECORD_BASES = frozenset({"typing.NamedTuple", "typing_extensions.NamedTuple"})


def is_record(cls: ast.ClassDef, qualify: Callable[[ast.expr], Optional[str]]) -> bool:
    """A ``@dataclass`` (or attrs class) or a ``NamedTuple``, by the absolute names ``qualify`` gives."""
    decorated = any(qualify(d.func if isinstance(d, ast.Call) else d) in RECORD_DECORATORS for d in cls.decorator_list)
    return decorated or any(qualify(base) in RECORD_BASES for base in cls.bases)
