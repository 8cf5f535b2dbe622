"""The rules' documentation, gathered from the rule families (``containers.DOCS``, ``caches.DOCS``): the single
source of ``weakglobals --explain WG001``, of the SARIF rule help, and of ``docs/rules.md``
(``tests/test_explain.py`` checks that the page says exactly this). Each entry is Markdown: an italic one-line
definition, then the same five bullets (why it matters, an example, the fix, what the fix changes at run
time, known false positives), as ruff's rule pages.
"""
from __future__ import annotations

import re

from . import caches, codes, containers, finalizers, kept_hooks, kept_slots, singleton_state

DOCS: dict[str, str] = dict(sorted({**codes.DOCS, **containers.DOCS, **caches.DOCS, **finalizers.DOCS, **kept_hooks.DOCS, **singleton_state.DOCS, **kept_slots.DOCS}.items()))

_README_LINK = re.compile(r"\[([^\]]+)\]\(#[^)]+\)")


def title(code: str) -> str:
    """The entry's definition in plain words: its first paragraph without Markdown emphasis."""
    first = DOCS[code].split("\n\n", 1)[0]
    return " ".join(first.replace("*", "").replace("`", "").split())


def explanation(code: str) -> str:
    """What ``--explain`` prints: the entry as Markdown (as ``ruff rule`` does), with the README's links to its
    own sections reduced to their words, since a terminal cannot follow them."""
    return f"{code} (flake8-weakglobals)\n\n" + _README_LINK.sub(r"\1", DOCS[code])
