"""``# noqa`` exactly as flake8 applies it, for the tools that run without flake8 (the hook, the codemod).

flake8 (7.x) looks for the comment on the reported physical line, extended over the lines a token spans
(a multi-line string) and over backslash continuations; it does not extend over the lines of a bracketed
expression. A ``# flake8: noqa`` line silences the whole file. ``tests/test_noqa.py`` checks this module
against flake8 itself, so the codemod never fixes what flake8 shows as silenced, nor skips what it reports.
"""
from __future__ import annotations

import bisect
import re
import tokenize

_INLINE = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
_FILE = re.compile(r"\s*# flake8[:=]\s*noqa", re.IGNORECASE)  # a prefix: codes after it are ignored, as flake8 does
_SEPARATORS = re.compile(r"[,\s]")
_MENTION = re.compile("noqa", re.IGNORECASE)


class NoqaMap:
    """Answers "is this code silenced on this line?" for one module's source."""

    def __init__(self, source: str, statements: list[tuple[int, int]]) -> None:
        """``statements``: the first and last lines of the module's top-level statements, as
        ``syntax.scopes.top_level_spans`` gives them."""
        mentioned = _MENTION.search(source) is not None  # else nothing is silenced: skip splitting and tokenizing
        self._lines = source.splitlines(keepends=True) if mentioned else []
        self._whole_file = any(_FILE.match(line) for line in self._lines)
        self._spans = statements
        self._starts = [start for start, _ in self._spans]
        self._ranges: dict[int, str] = {}
        self._tokenized: set[int] = set()

    def _text_around(self, line: int) -> str:
        """The text flake8 searches for ``line``'s ``# noqa``: the lines of its group of tokens. A group
        never crosses the end of a top-level statement, where nothing is open, so only that statement is
        tokenized (a large file with findings cost a second when tokenized whole); a line outside every
        statement (a comment, a blank) is its own group."""
        own = self._lines[line - 1] if 0 < line <= len(self._lines) else ""
        position = bisect.bisect_right(self._starts, line) - 1
        if position < 0 or line > self._spans[position][1]:
            return own
        if position not in self._tokenized:
            self._tokenized.add(position)
            self._ranges.update(self._line_ranges(*self._spans[position]))
        return self._ranges.get(line, own)

    def _line_ranges(self, start: int, end: int) -> dict[int, str]:
        """Each line from ``start`` to ``end`` (a span of top-level statements) mapped to the text flake8
        searches for its ``# noqa`` (flake8's own grouping)."""
        ranges: dict[int, str] = {}
        lines = iter(self._lines[start - 1 : end])
        first, last = end + 1, -1
        try:
            for token in tokenize.generate_tokens(lambda: next(lines, "")):
                if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
                    continue
                first, last = min(first, token.start[0] + start - 1), max(last, token.end[0] + start - 1)
                if token.type in (tokenize.NL, tokenize.NEWLINE):
                    joined = "".join(self._lines[first - 1 : last])
                    ranges.update(dict.fromkeys(range(first, last + 1), joined))
                    first, last = end + 1, -1
        except (tokenize.TokenError, SyntaxError):
            return {}
        return ranges

    def silences(self, code: str, line: int) -> bool:
        if self._whole_file:
            return True
        text = self._text_around(line) if self._lines else ""
        match = _INLINE.search(text)
        if match is None:
            return False
        if match.group("codes") is None:
            return True
        codes = tuple(part.strip() for part in _SEPARATORS.split(match.group("codes")) if part.strip())
        return code in codes or code.startswith(codes)
