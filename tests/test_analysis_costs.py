"""What keeps the analysis cheap without changing what it finds: which lines mention a word (the text
decides which statements are walked), and no reference cycles (a check's tree is freed when it ends)."""
from __future__ import annotations

import ast
import gc
import textwrap
from pathlib import Path
from typing import Iterator

import pytest

from flake8_weakglobals.index.project import context_for
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
    # a word is searched once; what follows it is checked per question, in either order
    assert mentions.words(["registry"], then=r"\.") == [5] and mentions.words(["registry"]) == [4, 5]


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


_ONE_DATASET = """
if "{n}" in datasets:
    path = cfg.paths["{n}"]
    split = load(path)
    data = EvalData(split, processor, path)
    loader = DataLoader(data, batch_size=4)
    predictions = []
    for images, questions, labels in tqdm(loader):
        answers = model.generate(images, questions)
        for answer, label in zip(answers, labels):
            predictions.append(answer)
"""


def test_a_script_that_rebinds_its_names_once_per_dataset_asks_about_each_name_a_few_times(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An evaluation script rebinds ``path``, ``data`` and ``loader`` once per dataset, each from the
    others (MiniGPT-4's eval_vqa.py): asking what ``predictions`` is given asked every combination of their
    bindings, 6 ** depth questions (93,000 about ``cfg`` here; 34 s for the real file). What a name's
    bindings agree on is worked out once."""
    from flake8_weakglobals.analysis.evidence import Evidence

    source = textwrap.dedent(
        """\
        import argparse
        import torch
        from torch.utils.data import DataLoader
        from tqdm import tqdm
        from helpers import load, Config


        class EvalData:
            def __init__(self, split, processor, path):
                self.split = split
                self.processor = processor
                self.path = path


        cfg = Config(argparse.ArgumentParser().parse_args())
        model = torch.nn.Linear(2, 2)
        processor = load(cfg)
        """
    ) + "".join(_ONE_DATASET.format(n=n) for n in range(6))
    asked: list[str] = []
    of_name = Evidence._of_name

    def counted(self: Evidence, name: ast.Name) -> object:
        asked.append(name.id)
        return of_name(self, name)

    monkeypatch.setattr(Evidence, "_of_name", counted)
    script = tmp_path / "evaluate.py"
    script.write_text(source)
    analyze(ast.parse(source), source, context=context_for(script))  # tqdm read from its installed source
    assert 0 < asked.count("cfg") <= 12 and len(asked) < 200
