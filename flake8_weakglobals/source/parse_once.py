"""Each module parsed once per run.

Checking a file can make the project index parse another module, to summarise it. When that module is
one the same run checks later, its tree is kept and the run checks that module next, with the tree, while
it is still in memory: over a whole package (torch), most of the modules the index summarises are ones the
run checks anyway, and a second parse of each cost as much as the rest of the index.

A batch is the files one process checks in order: all of them for ``--jobs 1``, one chunk in a worker.
Only trees of the batch's own files that are still to be checked are kept, and only until the file that
asked is done (``next_up``), so memory stays bounded by what one check reaches. Per-file flake8 opens no
batch, so nothing is ever kept there (and its process's collector is left alone). A kept tree is used only
for the very text it was parsed from.
"""
from __future__ import annotations

import ast
import contextlib
import gc
import os
from pathlib import Path
from typing import Iterator, Optional, Sequence


class Batch:
    """The files one process checks in order (``parallel.Batch``), and the trees kept for those still to come."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self._pending = {_key(path): path for path in paths}  # still to be checked, as the run names them
        self._kept: dict[str, tuple[str, ast.Module]] = {}

    def offer(self, path: Path, text: str, tree: ast.Module) -> None:
        key = _key(path)
        if key in self._pending:
            self._kept[key] = (text, tree)

    def take(self, path: Path, text: str) -> Optional[ast.Module]:
        kept = self._kept.pop(_key(path), None)
        return kept[1] if kept is not None and kept[0] == text else None

    def done(self, path: Path) -> None:
        key = _key(path)
        self._pending.pop(key, None)
        self._kept.pop(key, None)  # a file the prefilter skipped never took its tree

    def next_up(self) -> list[Path]:
        """The files whose trees are kept: cheapest to check now."""
        return [self._pending[key] for key in self._kept]


_CURRENT: Optional[Batch] = None
#: Allocations between two passes of the cyclic collector over young objects while a batch runs (Python's
#: default is 700). Every check allocates a whole tree, which has no reference cycles (nor has anything the
#: analysis builds: ``tests/test_analysis_costs.py``), and the default's passes over each new tree found
#: nothing while costing a fifth of the parse. mypy tunes its collector the same way.
_YOUNG_OBJECTS_PER_COLLECTION = 100_000


@contextlib.contextmanager
def batch(paths: Sequence[Path]) -> Iterator[Batch]:
    global _CURRENT, _FREEZING
    previous, _CURRENT = _CURRENT, Batch(paths)
    previously_freezing, _FREEZING = _FREEZING, _FREEZING or gc.get_freeze_count() == 0  # never unfreeze another's heap
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], _YOUNG_OBJECTS_PER_COLLECTION), *thresholds[1:])
    try:
        yield _CURRENT
    finally:
        _CURRENT = previous
        gc.set_threshold(*thresholds)
        if _FREEZING and not previously_freezing:
            gc.unfreeze()
        _FREEZING = previously_freezing


#: Young objects below which ``settle_survivors`` leaves them for a later file's pass.
_SETTLED_AT_LEAST = 20_000
_FREEZING = False  # whether the batch open may freeze what a file's check leaves (and unfreezes it at its end)


def settle_survivors() -> None:
    """After one file's check, with the collector paused for it: what the check left alive is frozen until
    the batch ends. The survivors are the run's caches of other modules' trees and references (the codemod's
    questions about uses elsewhere keep them), millions of nodes without cycles that every later pass of the
    collector would rescan: ``--check`` over torch spent two fifths of its CPU time there. They are not
    collected first: the few cycles a check leaves as garbage (798 objects over torch's 2,285 files, against
    0.36 s of collecting, 2% of the run) are freed with the rest when the batch unfreezes. Outside a batch
    (per-file flake8, a caller's own process) nothing is frozen. A check that left few young objects (most
    files: nothing to ask of other modules) is not worth it: they wait for the next file's."""
    if _CURRENT is not None and _FREEZING and gc.get_count()[0] >= _SETTLED_AT_LEAST:
        gc.freeze()


def offer(path: Path, text: str, tree: ast.Module) -> None:
    """A tree the index parsed: kept if the current batch checks that file later."""
    if _CURRENT is not None:
        _CURRENT.offer(path, text, tree)


def take(path: Path, text: str) -> Optional[ast.Module]:
    """The kept tree of ``path``, if it was parsed from ``text``."""
    return _CURRENT.take(path, text) if _CURRENT is not None else None


def _key(path: Path) -> str:
    return os.path.abspath(path)
