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
        self._offsets: dict[str, list[int]] = {}

    def lines(self, pattern: str) -> list[int]:
        """Sorted line numbers (1-based) of the lines where ``pattern`` matches."""
        return self._lines(match.start() for match in re.finditer(pattern, self.source))

    def words(self, words: Iterable[str], then: str = "") -> list[int]:
        """The lines naming any of ``words`` (identifiers) as a whole word, followed by what ``then``
        matches (``\\s*\\(``: called)."""
        key = (frozenset(words), then)
        if key not in self._words:
            followed = re.compile(then).match if then else None
            offsets = [
                offset
                for word in key[0]
                for offset in self._whole_word(word)
                if followed is None or followed(self.source, offset + len(word))
            ]
            if len(key[0]) > 1:
                offsets.sort()
            self._words[key] = self._lines(offsets)
        return self._words[key]

    def _whole_word(self, word: str) -> list[int]:
        """Where ``word`` starts as a whole word, each word searched once whatever follows it is asked for.
        ``str.find`` rather than ``re``: a word is mostly absent, and ``find`` rules that out in half the
        time; an alternation of the words had no common literal, so ``re`` tried it at every character."""
        if word not in self._offsets:
            source, found, size = self.source, [], len(word)
            start = source.find(word)
            while start >= 0:
                end = start + size
                if not (_continues_word(source, start - 1) or _continues_word(source, end)):
                    found.append(start)
                    start = source.find(word, end)
                else:
                    start = source.find(word, start + 1)
            self._offsets[word] = found
        return self._offsets[word]

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
        start = first_line(node) if getattr(node, "decorator_list", None) else node.lineno  # most nodes have none
        position = bisect.bisect_left(lines, start)
        return position < len(lines) and lines[position] <= (node.end_lineno or node.lineno)


def _continues_word(source: str, offset: int) -> bool:
    """Whether the character at ``offset`` is part of an identifier (``\\w``), so a word touching it is
    only part of a longer one."""
    return 0 <= offset < len(source) and (source[offset].isalnum() or source[offset] == "_")
