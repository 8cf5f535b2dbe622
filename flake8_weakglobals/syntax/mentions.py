"""Which lines of a module's text mention a word, counted as the tokenizer counts them.

Walking every node of a module costs more than the rest of the analysis, and a name is always spelled out
where it is used: so the passes that look for uses of one name (the uses of a candidate, the call sites of
a function, the functions of a summarised module that name a container) first ask the text which lines
can matter, and walk only the statements that cover them. Knows nothing of rules.
"""
from __future__ import annotations

import ast
import bisect
import itertools
import re
from typing import Iterable, Optional

from .scopes import first_line

_NEWLINES = re.compile(r"\r\n?|\n")  # the tokenizer's line ends (``str.splitlines`` also splits on form feeds)
#: ``from m import *``, however it is spaced. Led by its literal, so ``re`` skips to each ``import`` (a
#: leading ``\b`` made it try every position: 0.77 s over torch's files, 0.04 s without it); a gate,
#: where a rare extra match (``reimport *`` in a comment) only costs a closer look.
STAR_IMPORT = re.compile(r"import\s+\*")


def line_starts(source: str) -> list[int]:
    """Offset of the start of each line (line 1 first)."""
    if source.count("\r") != source.count("\r\n"):  # lone carriage returns: rare, and slower to count
        return [0, *(match.end() for match in _NEWLINES.finditer(source))]
    return [0, *itertools.accumulate(len(line) + 1 for line in source.split("\n"))]


class Mentions:
    """The line numbers of a module's matches of a pattern (those of a set of words are remembered: several
    passes ask about the same ones), and whether a statement covers one of them."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._lone_returns = "\r" in source and source.count("\r") != source.count("\r\n")
        self._starts: Optional[list[int]] = None
        self._words: dict[tuple[frozenset[str], str], list[int]] = {}

    def lines(self, pattern: str) -> list[int]:
        """Sorted line numbers (1-based) of the lines where ``pattern`` matches."""
        return self._lines(match.start() for match in re.finditer(pattern, self.source))

    def words(self, words: Iterable[str], then: str = "") -> list[int]:
        """The lines naming any of ``words`` (identifiers) as a whole word, followed by what ``then``
        matches (``\\s*\\(``: called)."""
        key = (frozenset(words), then)
        if key not in self._words:
            self._words[key] = self._find_words(key[0], then) if key[0] else []
        return self._words[key]

    def _find_words(self, words: frozenset[str], then: str) -> list[int]:
        # One search per word, each led by its literal, which ``re`` skips ahead to: an alternation of the
        # words has no common literal, so ``re`` tried it at every character (5x slower over torch for
        # ``finalize|ref``). No leading ``\b`` either, for the same reason: the start is checked here, the
        # end by ``(?!\w)``. A match of one word never starts where another's does (each ends at a word's end).
        source = self.source
        offsets = [
            match.start()
            for word in words
            for match in re.finditer(rf"{re.escape(word)}(?!\w){then}", source)
            if match.start() == 0 or not (source[match.start() - 1].isalnum() or source[match.start() - 1] == "_")
        ]
        if len(words) > 1:
            offsets.sort()
        return self._lines(offsets)

    def _lines(self, offsets: Iterable[int]) -> list[int]:
        if self._lone_returns:
            if self._starts is None:
                self._starts = line_starts(self.source)
            return sorted({bisect.bisect_right(self._starts, offset) for offset in offsets})
        found: list[int] = []
        line, last = 1, 0
        for offset in offsets:  # newlines counted between matches: no line table
            line += self.source.count("\n", last, offset)
            last = offset
            if not found or found[-1] != line:
                found.append(line)
        return found

    @staticmethod
    def within(lines: list[int], node: ast.stmt | ast.expr) -> bool:
        """Whether one of ``lines`` falls within a node's first (decorators included) and last lines."""
        position = bisect.bisect_left(lines, first_line(node))
        return position < len(lines) and lines[position] <= (node.end_lineno or node.lineno)
