"""What the use classification records about one long-lived container: where it is bound, what fills it,
and every use the rules and the fix's safety check read (``uses.py`` fills these in; the passing of the
container to calls, ``passed_to_calls.py``, adds its blockers here too).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional

from ..syntax.container_expressions import Constructor, Member
from .imported_kinds import ImportedKind
from .long_lived_places import Slot


@dataclass(frozen=True)
class Definition:
    target: ast.expr
    value: Optional[ast.expr]  # None when the binding is not an assignment the analysis can read
    annotation: Optional[ast.expr]
    constructor: Optional[Constructor]
    top_level: bool  # in the module or class body itself, not rebound from inside a function


@dataclass(frozen=True)
class Fill:
    member: Member  # shape "update" means: pairs for maps, elements for sets and lists
    line: int
    how: str
    id_key: bool = False  # the member is the ``x`` of an ``id(x)`` key
    #: Run at import, in the module's or a class's own body: what it puts there is the module's own table
    #: (a test module's parameters), not something a later caller hands over.
    at_import: bool = False
    #: The function that makes the fill, if any: a fill undone in that function's ``finally`` (or in the
    #: ``__exit__`` of the ``__enter__`` that makes it) lasts one use only
    function: Optional[ast.AST] = field(default=None, compare=False)
    #: Made through ``self.X`` in a method, where ``X`` is a class attribute: the instance's own state, put
    #: in the one container every instance shares, which outlives each of them
    through_instance: bool = False
    #: Made by a function of another project module the container is handed to (``cached(_CACHE, w)``),
    #: which stores what it builds there (``summaries.filled_parameter``): what it stores, under keys this
    #: module does not see
    stored_elsewhere: Optional[ImportedKind] = field(default=None, compare=False)
    #: Made in a function of this module the container was handed to: the call that handed it over, how
    #: many parameters that call skips (``self``), and the function, whose other parameters the call binds
    #: (a builder ``_cached(_CACHE, key, lambda: torch.ones(n))`` gives it, called there as ``build()``)
    handed_by: Optional[tuple[ast.Call, int, ast.AST]] = field(default=None, compare=False)


@dataclass
class SlotUses:
    slot: Slot
    definitions: list[Definition] = field(default_factory=list)
    fills: list[Fill] = field(default_factory=list)
    subscript_reads: list[Fill] = field(default_factory=list)  # fills too, for a defaultdict
    removals: list[int] = field(default_factory=list)
    #: Removals that only bound its size (``if len(X) > N: X.clear()``): it never empties after use
    bounding_clears: list[int] = field(default_factory=list)
    #: Removals guarded by a count that reached zero (``entry.refcount -= 1; if entry.refcount <= 0: del
    #: X[key]``): entries reference-counted by their holders, gone when the last one releases them
    released_at_zero: list[int] = field(default_factory=list)
    #: Functions that remove from it in a ``finally`` block, or are an ``__exit__``: what they (or the
    #: ``__enter__`` beside them) put there is taken out again at the end of every use
    undoing: set[ast.AST] = field(default_factory=set)
    #: Functions that take something out of it, on any path: a method of the filling class that calls one in
    #: a ``finally`` closes what the class opened (``finish(): try: ... finally: self._release()``)
    removing: set[ast.AST] = field(default_factory=set)
    #: ``(function, line)``: a function that takes out again, on its normal path, what it put in (a staging
    #: map drained once a block's pieces are in: ``del X[block]``, ``X.pop(i) for i in ...``, ``X.clear()``).
    #: Its fills before that line last that call only.
    drains: list[tuple[ast.AST, int]] = field(default_factory=list)
    #: ``X.popleft()``, ``X.pop(0)``: what goes in first comes out first
    taken_in_order: list[int] = field(default_factory=list)
    #: Uses other than a work queue's (``append``, ``popleft()``, ``len(X)``, ``while X:``): an element is
    #: read, kept or walked other than in its turn
    out_of_turn: list[int] = field(default_factory=list)
    methods: list[tuple[int, str]] = field(default_factory=list)  # every ``X.method`` used, for the runtime check
    operators: list[int] = field(default_factory=list)  # ``X | Y`` and friends
    equalities: list[int] = field(default_factory=list)  # ``X == Y``: order-sensitive for an OrderedDict
    printed: list[int] = field(default_factory=list)  # ``print(X)``, ``f"{X}"``: an OrderedDict prints as one
    blockers: list[tuple[int, str]] = field(default_factory=list)  # uses the runtime cannot honour
    id_calls: list[ast.Call] = field(default_factory=list)  # ``id(x)`` keys, unwrapped by the id-keyed fix
    key_uses: list[tuple[int, str]] = field(default_factory=list)  # uses without ``id()`` that see keys
    #: ``X.keys()`` / ``.values()`` / ``.items()`` kept or used other than by iterating them at once: a
    #: ``WeakKeyDictionary``'s are one-shot generators (``next(X.values())``), a dict's are views.
    views_kept: list[tuple[int, str]] = field(default_factory=list)
    #: ``torch.cat(X)``: passed whole where torch wants a sequence of tensors, so what it holds are tensors
    tensor_sequences: list[tuple[int, str]] = field(default_factory=list)
    #: ``isinstance(m, tuple(X))``: what it holds is read as types, so it holds classes, not instances
    read_as_types: list[int] = field(default_factory=list)
    #: Every reference to it in its module, as the statement that makes it: the uses a fix's proof lists
    ledger: list[tuple[int, ast.AST]] = field(default_factory=list)
