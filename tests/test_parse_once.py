"""A run parses each module once: a tree the index parsed for a summary is the one the run checks, and
the loop that checks a batch of files does such a file next, yet yields every result once, in order."""
from __future__ import annotations

import ast
import collections
import contextlib
import gc
import shutil
import subprocess
import sys
import weakref
from pathlib import Path
from typing import Iterator, Sequence

import pytest

from conftest import HERE
from flake8_weakglobals.frontends import command as lint
from flake8_weakglobals.source import parse_once
from flake8_weakglobals.frontends.parallel import ordered_results


def test_a_run_parses_a_module_the_index_summarised_only_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``model.py`` asks about ``store.py`` (its keeper), which comes later in the run."""
    project = shutil.copytree(HERE / "fixtures" / "projects" / "keepers", tmp_path / "keepers")
    monkeypatch.setenv("WEAKGLOBALS_NO_CACHE", "1")
    parsed: collections.Counter[str] = collections.Counter()
    real_parse = ast.parse

    def counting_parse(source: str | bytes, filename: str = "<unknown>", *args: object, **kwargs: object) -> ast.Module:
        parsed[Path(filename).name] += 1
        return real_parse(source, filename, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ast, "parse", counting_parse)
    assert lint.main(["--jobs", "1", str(project)]) == 1
    one_job = capsys.readouterr().out
    assert parsed["store.py"] == 1 and max(parsed.values()) == 1, parsed
    monkeypatch.setattr(ast, "parse", real_parse)
    assert lint.main(["--jobs", "1", str(project)]) == 1 and capsys.readouterr().out == one_job


def test_a_kept_tree_is_used_only_for_the_text_it_was_parsed_from(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    with parse_once.batch([path, tmp_path / "other.py"]) as batch:
        parse_once.offer(path, "x = 1\n", ast.parse("x = 1\n"))
        parse_once.offer(tmp_path / "elsewhere.py", "y = 1\n", ast.parse("y = 1\n"))  # not in the batch
        assert batch.next_up() == [path]
        assert parse_once.take(path, "x = 2\n") is None  # changed since: parsed again
        parse_once.offer(path, "x = 1\n", ast.parse("x = 1\n"))
        assert isinstance(parse_once.take(path, "x = 1\n"), ast.Module)
        batch.done(path)
        parse_once.offer(path, "x = 1\n", ast.parse("x = 1\n"))  # checked already: not kept
        assert batch.next_up() == []
    assert parse_once.take(path, "x = 1\n") is None  # no batch: nothing kept


def test_a_batch_runs_the_collector_rarely_and_restores_it() -> None:
    before = gc.get_threshold()
    with parse_once.batch([]):
        assert gc.get_threshold()[0] >= 100_000
    assert gc.get_threshold() == before


class NamesTheNextButTwo:
    """A batch that, once an even item is done, names the item three places on as cheap to do now."""

    def __init__(self, items: Sequence[int]) -> None:
        self.pending = set(items)
        self.named: list[int] = []

    def next_up(self) -> list[int]:
        return [item for item in self.named if item in self.pending]

    def done(self, item: int) -> None:
        self.pending.discard(item)
        if item % 2 == 0 and item + 3 in self.pending:
            self.named.append(item + 3)


@contextlib.contextmanager
def named_batch(items: Sequence[int]) -> Iterator[NamesTheNextButTwo]:
    yield NamesTheNextButTwo(items)


CALLS: list[int] = []


def record(item: int, offset: int) -> int:
    CALLS.append(item)
    return item + offset


def test_items_a_batch_names_are_done_early_once_and_yielded_in_order() -> None:
    """In-process, where the calls show the batch at work."""
    CALLS.clear()
    items = list(range(40))
    results = []
    for result in ordered_results(record, items, 100, 1, named_batch):
        results.append(result)
        CALLS.append(-result)  # what the caller does with a result, in the order it happens
    assert results == [item + 100 for item in items]
    assert sorted(call for call in CALLS if call >= 0) == items, "every item done exactly once"
    # item 0 is yielded (the codemod writes its file) before item 3 is done early, item 3 after item 1
    assert CALLS[:7] == [0, -100, 3, 1, -101, 2, -102]


def reversed_order(items: Sequence[int]) -> list[int]:
    return list(range(len(items)))[::-1]


def test_work_done_in_another_order_is_still_yielded_in_order() -> None:
    """``order`` decides when each item is done (the run checks importers first), never the order of the
    results: the last item is done first, and nothing is yielded before the first item is done."""
    CALLS.clear()
    items = list(range(20))
    results = []
    for result in ordered_results(record, items, 100, 1, None, reversed_order):
        results.append(result)
        CALLS.append(-result)
    assert results == [item + 100 for item in items]
    assert CALLS == [*reversed(items), *(-100 - item for item in items)]


def test_a_pool_does_the_work_in_the_order_given_and_yields_in_order(tmp_path: Path) -> None:
    items = list(range(40))
    log = tmp_path / "calls"
    assert list(ordered_results(logged, items, log, 2, named_batch, reversed_order)) == [item + 100 for item in items]
    done = list(map(int, log.read_text().split()))
    assert sorted(done) == items, "every item done exactly once"
    assert done[0] >= 36, f"the first two chunks the pool hands out are the last items: {done[:4]}"


def logged(item: int, log: Path) -> int:
    """Appends the item to ``log`` (one short line per write, so lines from two processes never mix)."""
    with log.open("a") as handle:
        handle.write(f"{item}\n")
    return item + 100


def test_items_are_done_once_and_yielded_in_order_by_a_pool(tmp_path: Path) -> None:
    """With two worker processes, the work is done where the test cannot count calls: each call logs."""
    items = list(range(40))
    log = tmp_path / "calls"
    assert list(ordered_results(logged, items, log, 2, named_batch)) == [item + 100 for item in items]
    assert sorted(map(int, log.read_text().split())) == items, "every item done exactly once"


def test_what_a_check_leaves_is_frozen_until_the_batch_ends_and_its_cycles_are_freed_then(tmp_path: Path) -> None:
    """The codemod's per-file step (``fixes.job.process``) pauses the collector; what survives a file is
    frozen, so later collections skip the run's caches. A cycle the file left as garbage is frozen with it
    (collecting before each freeze cost 2% of ``--check`` for a few hundred objects over torch), and the
    batch's end gives the heap back to the collector, which then frees it. A heap frozen before the batch
    is neither frozen further nor unfrozen. In a child process: this one's heap may be frozen already
    (``pytest --weakglobals`` freezes it around each test)."""
    path = tmp_path / "pinning.py"
    path.write_text("import torch.nn as nn\nnames = {}\n\ndef f(m: nn.Module):\n    names[m] = 1\n")
    script = f'''
import gc, weakref
from pathlib import Path
import fixes.job
from flake8_weakglobals.frontends.config import Settings
from flake8_weakglobals.source import parse_once

class Cycle:
    """An object that refers to itself: freed only by the cyclic collector."""

path, left, real_check = Path({str(path)!r}), [], fixes.job.check_file

def check_leaving_a_cycle(*arguments):
    cycle = Cycle()
    cycle.me = cycle
    left.append(weakref.ref(cycle))
    return real_check(*arguments)

fixes.job.check_file = check_leaving_a_cycle
assert gc.get_freeze_count() == 0, "the child froze nothing"
with parse_once.batch([path]):
    result = fixes.job.process(path, Settings(runtime="import"))
    assert [finding.name for finding in result.fixed] == ["names"]
    assert gc.get_freeze_count() > 0
    gc.collect()
    assert left and left[0]() is not None, "the file's cycle is frozen with what the file left"
assert gc.get_freeze_count() == 0
gc.collect()
assert left[0]() is None, "the batch's end gave the cycle back to the collector"
gc.freeze()  # a caller's heap frozen before the batch
frozen = gc.get_freeze_count()
with parse_once.batch([path]):
    fixes.job.process(path, Settings(runtime="import"))
    assert gc.get_freeze_count() == frozen
assert gc.get_freeze_count() == frozen
print("checked")
'''
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.split() == ["checked"], done.stderr
