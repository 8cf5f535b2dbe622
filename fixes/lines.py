"""A file's lines as the tokenizer splits them, and its line ending: a fix writes lines as the file has them."""
from __future__ import annotations

import re
from typing import Sequence

_LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n)|[^\r\n]+$")  # the tokenizer's lines (not str.splitlines')


def lines_of(text: str) -> list[str]:
    """``text``'s lines, each with its ending (``\\r\\n``, ``\\r`` or ``\\n``)."""
    return _LINE.findall(text)


def newline_of(lines: Sequence[str]) -> str:
    """The line ending the file uses (that of its first line), for the lines a fix adds."""
    ending = next((line for line in lines if line.endswith(("\n", "\r"))), "\n")
    return "\r\n" if ending.endswith("\r\n") else "\r" if ending.endswith("\r") else "\n"
