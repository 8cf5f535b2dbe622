"""What the analysis reports: findings, and the edits that would fix them.

One analysis feeds two consumers: the flake8 plugin prints findings, the codemod applies their edits. An
edit names an expression by its ``ast`` span, so the codemod rewrites exactly what the linter reported.
"""
from __future__ import annotations

import ast
import enum
from dataclasses import dataclass
from typing import Optional

from ..analysis.owners import Premise


class EditKind(enum.Enum):
    WRAP = "wrap"  # {...} / {k: v for ...}  ->  WeakIdMap({...}); an empty {} becomes WeakIdMap()
    RENAME_CALLEE = "rename-callee"  # dict(x) / set() / WeakKeyDictionary()  ->  WeakIdMap(x) / WeakIdSet()
    DEFAULT_FACTORY = "default-factory"  # defaultdict(f, x)  ->  WeakIdMap(x, default_factory=f)
    RENAME_GENERIC = "rename-generic"  # Dict[K, V] / dict  ->  WeakIdMap[K, V] / WeakIdMap (annotations)
    UNWRAP_ID = "unwrap-id"  # id(x)  ->  x, for maps that were keyed by id()


@dataclass(frozen=True)
class Span:
    """An ``ast`` node's extent: 1-based lines, 0-based UTF-8 byte columns, end exclusive."""

    line: int
    col: int
    end_line: int
    end_col: int

    @classmethod
    def of(cls, node: ast.AST) -> Span:
        return cls(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined,arg-type]


@dataclass(frozen=True)
class Edit:
    kind: EditKind
    span: Span
    name: str  # what to write: "WeakIdMap", "WeakIdSet" or "WeakIdMap.fromkeys"
    displaces: str = ""  # the name whose use the edit removes (``Dict``, ``collections``): maybe an unused import


@dataclass(frozen=True)
class Evidence:
    """Where a container is filled with framework objects, and what shows they are framework objects."""

    line: int
    text: str  # e.g. "from `model.named_modules()`"


@dataclass(frozen=True)
class Finding:
    code: str
    line: int
    col: int  # 0-based, as ast reports it; flake8 prints col + 1
    name: str  # the container (``module_names``, ``Registry.cache``) or, for WG006, the cached function
    kind: str  # what the container is: "dict", "set", "list", "WeakKeyDictionary", ...
    scope: str  # "module", "class", "instance" or "function"
    holds: tuple[str, ...]  # vocabulary kinds: "module", "parameter", "tensor" or an extra type's name
    evidence: Evidence
    message: str
    fix_reason: Optional[str] = None  # why the codemod leaves it alone; None when it can fix it
    edits: tuple[Edit, ...] = ()
    runtime_names: frozenset[str] = frozenset()  # WeakIdMap / WeakIdSet, for the import the fix adds
    #: The module's functions and classes whose code fills the container (``register``, ``Block``): a
    #: WeakValueMap's fix checks the values they are given only in this module, so the codemod refuses it
    #: where another module calls them (``fixes/outside.py``).
    fillers: tuple[str, ...] = ()
    #: What the fix rests on, one line each: the owner of everything it will hold weakly, and every use of
    #: the container in its module (the codemod adds the uses it finds in other modules); ``--diff`` prints it.
    proof: tuple[str, ...] = ()
    #: What the owners shown here take on trust from callers in other modules, which the codemod checks there.
    premises: tuple[Premise, ...] = ()
    #: Whether its module reads it by a route that sees what an owner let go (a list by position, a keyed
    #: container by a walk): a release where another module keeps an owner then refuses the fix.
    sees_what_goes: bool = False

    @property
    def fixable(self) -> bool:
        return self.fix_reason is None
