"""The runtime inline: the code a fixed module uses, inserted into the module itself, between two marker lines.

An import of the runtime must resolve however the module is run (by path, with ``python -m``, through
``runpy``, ``spec_from_file_location``, a ``sys.path`` entry a script adds, a zipapp, a namespace package...),
and no list of layouts is complete; a vendored file can also be found by code that walks a directory. Code
inside the module has no import to resolve and no file to discover, as DeepSpeed's maintainers fixed
``debug.py`` by hand with a class inside it. So by default the codemod writes into each fixed module a block
holding what that module's fixes use, and nothing else:

- only the definitions the module's runtime names reach (its ``WeakIdSet`` without ``StrictWeakIdSet``);
- every name private (``WeakIdMap`` -> ``_WeakIdMap``, ``import weakref as _weakref``), so ``from mod import
  *`` and ``__all__``-less walks see nothing new, and renamed (``_MISSING_1``) wherever the module already
  spells a name of ours;
- without annotations: evaluated in a module without ``from __future__ import annotations`` they would need
  names defined later, and at module level they would add entries to the module's ``__annotations__``
  (``typing.get_type_hints(module)``); ``# type: ignore`` comments and ``@overload`` stubs go with them. The
  classes keep their generic bases, so ``_WeakIdMap[nn.Module, str]`` is still an annotation a type checker
  reads.

Its first line names the runtime names it holds: a later run recognises the block, leaves it as it is when
it holds what the new fixes use, and otherwise writes it again with the names it held and the new ones (the
module's earlier fixes use them), under the names it bound before.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Optional, Sequence


_BEGIN = re.compile(r"^# --- flake8-weakglobals (?P<version>\S+), its runtime inline: (?P<names>[A-Za-z_, ]+)\.")
END = "# --- end of flake8-weakglobals' runtime"
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class InlineError(Exception):
    """The module holds a block of ours that cannot be read (its end line is gone); the message says what to do."""


@dataclass(frozen=True)
class Block:
    """The inline runtime a module holds: lines ``first``..``last`` (0-based, both marker lines included)."""

    first: int
    last: int
    names: tuple[str, ...]  # the runtime names it holds (``WeakIdMap``), as its first line lists them
    bound: frozenset[str]  # every name its code binds in the module


def find_block(lines: Sequence[str]) -> Optional[Block]:
    """The block of ours in a module's ``lines`` (each with its line ending), if any."""
    first = next((number for number, line in enumerate(lines) if _BEGIN.match(line)), None)
    if first is None:
        return None
    last = next((number for number in range(first + 1, len(lines)) if lines[number].rstrip("\r\n") == END), None)
    if last is None:
        raise InlineError(f"line {first + 1} opens flake8-weakglobals' inline runtime, but its end line `{END}` is gone: "
                          "restore it, or remove the block and run the fix again")
    match = _BEGIN.match(lines[first])
    assert match is not None
    names = tuple(name.strip() for name in match["names"].split(","))
    code = ast.parse("".join(lines[first : last + 1]))
    return Block(first, last, names, frozenset(name for statement in code.body for name in bound_names(statement)))


@dataclass(frozen=True)
class BlockEdit:
    """What a fix does to a module's inline runtime: lines ``remove`` (0-based, ``[start, stop)``) go, and
    ``lines`` go in before line ``insert`` (of the module as it was); nothing when the block holds enough."""

    names: dict[str, str]  # every name the block binds: the runtime's -> the module's (``WeakIdMap`` -> ``_WeakIdMap``)
    holds: tuple[str, ...]  # the runtime names the block holds once written
    remove: Optional[tuple[int, int]] = None
    insert: int = 0
    lines: tuple[str, ...] = ()
    added: int = 0  # lines the module gains


def taken_names(text: str) -> set[str]:
    """Every identifier ``text`` spells (in code, strings or comments): a name of the block that is one of
    them is renamed, whatever the module does with it."""
    return set(_IDENTIFIER.findall(text))


def bound_names(statement: ast.stmt) -> list[str]:
    """The names a top-level statement binds."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [statement.name]
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return [alias.asname or alias.name.partition(".")[0] for alias in statement.names]
    targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
    return [node.id for target in targets if target is not None for node in ast.walk(target) if isinstance(node, ast.Name)]
