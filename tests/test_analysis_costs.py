"""What keeps the analysis cheap without changing what it finds: which lines mention a word (the text
decides which statements are walked), and no reference cycles (a check's tree is freed when it ends)."""
from __future__ import annotations

import ast
import gc
import textwrap
from pathlib import Path
from typing import Iterator

import pytest

from flake8_weakglobals.rules.analyze_module import analyze
from flake8_weakglobals.syntax.mentions import Mentions

SOURCE = textwrap.dedent(
    """\
    import torch
    my_registry = 1
    registry_size = 2
    registry = {}  # line 4
    @registry.register  # line 5
    def f(x):
        return registry_all(x)
    ab = abc(1)  # line 8
    """
)


def test_words_are_whole_words_and_a_longer_word_is_never_hidden_by_a_shorter_one() -> None:
    mentions = Mentions(SOURCE)
    assert mentions.words(["registry"]) == [4, 5]
    assert mentions.words(["ab", "abc"]) == [8]
    assert mentions.words(["abc"]) == [8] and mentions.words(["bc"]) == []
    assert mentions.words(["abc", "registry_all"], then=r"\s*\(") == [7, 8]
    assert mentions.words([]) == []


def test_lines_are_counted_as_the_tokenizer_counts_them() -> None:
    assert Mentions("a = 1\r\nb = 2\rc = 3\x0cd\n").words(["c", "d"]) == [3]  # a form feed ends no line


def test_a_decorator_line_is_within_its_function() -> None:
    function = ast.parse(SOURCE).body[4]
    assert Mentions.within([5], function) and Mentions.within([7], function) and not Mentions.within([4, 8], function)


@pytest.fixture
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def test_a_checked_module_is_freed_as_soon_as_its_findings_are_returned(collector_off: None) -> None:
    """A cycle between the analysis's objects would keep the module's whole tree alive until the cyclic
    collector ran: over torch, that collector's extra work cost a third as much as parsing."""
    source = textwrap.dedent(
        """\
        import torch.nn as nn
        _SEEN = {}
        def remember(table, module):
            table[module] = 1
        class Block(nn.Module):
            def forward(self, x):
                remember(_SEEN, self)
                return x
        """
    )
    findings = analyze(ast.parse(source), source)
    assert [finding.code for finding in findings] == ["WG001"]
    gc.set_debug(gc.DEBUG_SAVEALL)  # what the collector finds unreachable is kept in gc.garbage, to look at
    try:
        gc.collect()
        ours = [type(thing).__name__ for thing in gc.garbage if isinstance(thing, ast.AST) or type(thing).__module__.startswith("flake8_weakglobals")]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert ours == []


def test_the_codemod_finds_the_files_that_spell_a_word_whole(tmp_path: Path) -> None:
    """Which files of the project mention a name decides which ones the codemod reads for uses elsewhere:
    a file where the word is only part of a longer one is not among them, and every whole spelling is."""
    from fixes import project_texts

    texts = {
        "a.py": "dir(x)\n",
        "b.py": "directory = subdir\n",
        "c.py": "x = 1  # see dir\n",
        "d.py": "os.dir",
        "e.py": "dir_ = _dir + dir2\n",
    }
    for name, text in texts.items():
        (tmp_path / name).write_text(text)
    scope = tmp_path.resolve()
    assert [path.name for path in project_texts.mentioning(scope, {"dir"})] == ["a.py", "c.py", "d.py"]
    assert [path.name for path in project_texts.mentioning(scope, {"directory", "dir2", "nowhere"})] == ["b.py", "e.py"]
    assert project_texts.spells(scope, scope / "d.py", "os") and not project_texts.spells(scope, scope / "e.py", "dir")
