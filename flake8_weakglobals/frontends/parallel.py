"""Running one function over many files in worker processes, for both command lines (``weakglobals`` and
``python -m fixes.apply``): results in input order as soon as each is ready, clean on Ctrl-C and SIGTERM,
and no worker left behind when one dies or the parent is killed.
"""
from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import repeat
from typing import Any, Callable, ContextManager, Generic, Iterator, Optional, Protocol, Sequence, TypeVar

Item = TypeVar("Item")
Argument = TypeVar("Argument")
Result = TypeVar("Result")

POOL_THRESHOLD = 16  # items: below this a process pool costs more than it saves


class Batch(Protocol):
    """What a batch of items (one process's share) may ask of the loop: items it can do cheaply right now."""

    def next_up(self) -> Sequence[Any]: ...

    def done(self, item: Any) -> None: ...


BatchOpener = Callable[[Sequence[Any]], ContextManager[Batch]]


def ordered_results(
    work: Callable[[Item, Argument], Result],
    items: Sequence[Item],
    argument: Argument,
    jobs: int,
    batch: Optional[BatchOpener] = None,
    order: Optional[Callable[[Sequence[Item]], Sequence[int]]] = None,
) -> Iterator[Result]:
    """``work(item, argument)`` for each item, yielded in the order of ``items`` as soon as each can be: in
    process for one job or few items, else from a process pool in chunks (``work``, its data and ``batch``
    must pickle). The work is done in the order ``order`` gives (positions of ``items``), else in order;
    results done ahead of their turn wait for it. Each process opens ``batch`` over its items, and after
    each item does the ones it names next first. Stopping early (an interrupt) cancels the items not yet
    started, and drops the results still waiting; a worker that dies raises ``BrokenProcessPool`` after the
    others are killed."""
    sequence = list(order(items)) if order is not None and len(items) > 1 else list(range(len(items)))
    if jobs <= 1 or len(items) < POOL_THRESHOLD:
        yield from _batch_results(work, items, argument, batch, sequence)
        return
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_worker_setup, initargs=(os.getpid(),))
    try:
        size = max(1, min(64, len(items) // (jobs * 8)))
        chunks = [sequence[start : start + size] for start in range(0, len(items), size)]
        with interrupts_held():  # workers are forked here; none may die of Ctrl-C before it ignores it
            outcomes = pool.map(_chunk_results, [[items[position] for position in chunk] for chunk in chunks], repeat((work, argument, batch)))
        turns: _Turns[Result] = _Turns()
        for chunk, results in zip(chunks, outcomes):
            for position, result in zip(chunk, results):
                turns.add(position, result)
            yield from turns.ready()
    except BrokenProcessPool:
        _kill_workers(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _chunk_results(chunk: Sequence[Item], job: tuple[Callable[[Item, Argument], Result], Argument, Optional[BatchOpener]]) -> list[Result]:
    return list(_batch_results(job[0], chunk, job[1], job[2], list(range(len(chunk)))))


def _batch_results(
    work: Callable[[Item, Argument], Result],
    items: Sequence[Item],
    argument: Argument,
    batch: Optional[BatchOpener],
    sequence: list[int],
) -> Iterator[Result]:
    """The items' results in order, the work done in ``sequence`` order and, after each item, the ones the
    batch names next. A result is yielded as soon as its turn comes, before any other item is done, so
    that what the caller does with it (the codemod writes the file) happens as early as it can."""
    with (batch or _NoBatch)(items) as opened:
        first_position: dict[Item, int] = {}
        for position, item in enumerate(items):
            first_position.setdefault(item, position)
        turns: _Turns[Result] = _Turns()
        for position in sequence:
            if position not in turns:  # else done early, maybe yielded already
                turns.add(position, work(items[position], argument))
                opened.done(items[position])
            yield from turns.ready()
            for early in _drain(opened):
                if first_position[early] not in turns:
                    turns.add(first_position[early], work(early, argument))
                opened.done(early)


class _Turns(Generic[Result]):
    """Results by position, handed out in the order of their positions as soon as each one's turn comes."""

    def __init__(self) -> None:
        self._waiting: dict[int, Result] = {}
        self._done: set[int] = set()
        self._next = 0

    def __contains__(self, position: int) -> bool:
        return position in self._done

    def add(self, position: int, result: Result) -> None:
        self._done.add(position)
        self._waiting[position] = result

    def ready(self) -> Iterator[Result]:
        while self._next in self._waiting:
            result = self._waiting.pop(self._next)
            self._next += 1
            yield result


class _NoBatch:
    """The batch of a caller that opens none: it never names an item to do next."""

    def __init__(self, items: Sequence[Any]) -> None:
        pass

    def __enter__(self) -> _NoBatch:
        return self

    def __exit__(self, *exception: object) -> None:
        pass

    def next_up(self) -> Sequence[Any]:
        return ()

    def done(self, item: Any) -> None:
        pass


def _drain(opened: Batch) -> Iterator[Any]:
    """The items the batch names next, until it names none (doing one may name more)."""
    while True:
        waiting = opened.next_up()
        if not waiting:
            return
        yield waiting[0]


_INTERRUPTS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """Holds Ctrl-C and SIGTERM back (they arrive on leaving) in the parent; children forked meanwhile
    start with them held too."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no fork, no process-group signals
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _worker_setup(parent: int) -> None:
    """Ctrl-C reaches every process of the group: workers ignore it, so that the parent, which stops the
    run cleanly, sees an interrupt rather than a pool broken by workers dying of it. A worker whose
    parent was killed outright exits rather than waiting for work forever."""
    for interrupt in _INTERRUPTS:
        signal.signal(interrupt, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _INTERRUPTS)  # one held since the fork is now dropped
    threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()


def _exit_with(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    """After one worker died (the out-of-memory killer, say), kill the others: before Python 3.14's
    ``kill_workers`` the pool leaves them running and ``shutdown`` can wait for them forever."""
    kill = getattr(pool, "kill_workers", None)
    if kill is not None:
        kill()
        return
    for worker in list((getattr(pool, "_processes", None) or {}).values()):
        worker.kill()
