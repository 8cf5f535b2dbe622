"""A file's import statements read from its text, not parsed: which modules it names, and what it takes
from each.

Two readers share it: the run's order (``import_order``: each module before those it imports) and the
question whether a module's package uses it (``ProjectIndex.used_by_its_package``). A scan over bytes
already in the page cache, on the lines that start with ``import`` or ``from`` (and the parenthesised names
of ``from pkg import (...)`` on the lines after). A name it misreads (an import inside a string, a backslash
continuation it does not see) costs its reader at most a parse or a finding's silence, never a wrong claim.
"""
from __future__ import annotations

import re
from typing import Iterator, Optional

from .summaries import absolute

_IMPORT_WORD = re.compile(r"import[ \t(\\]")  # a literal first, which ``re`` skips ahead to
_IMPORT_LINE = re.compile(r"[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import(?:[ \t]*\(([^)]*)|[ \t\\]+([\w, \t]*))|import[ \t]+([\w., \t]+))")


def import_statements(text: str, module: str, is_package: bool) -> Iterator[tuple[str, Optional[list[str]]]]:
    """Each import of ``text`` (module ``module``): the absolute module it names, with the names a ``from``
    takes from it (``from .x import a, b`` in ``pkg.m``: ``("pkg.x", ["a", "b"])``), or None for a plain
    ``import a.b`` (``("a.b", None)``)."""
    for match in _IMPORT_WORD.finditer(text):
        line = _IMPORT_LINE.match(text, text.rfind("\n", 0, match.start()) + 1)
        if line is None:
            continue
        source, enclosed, inline, plain = line.groups()
        if plain is not None:
            for part in plain.split(","):
                if part.strip():
                    yield part.split()[0], None
        else:
            members = enclosed if enclosed is not None else inline
            yield absolute(source, module, is_package), [member.split()[0] for member in members.split(",") if member.strip()]
