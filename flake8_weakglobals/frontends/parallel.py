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
from typing import Any, Callable, ContextManager, Iterator, Optional, Protocol, Sequence, TypeVar

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
) -> Iterator[Result]:
    """``work(item, argument)`` for each item, in order, as soon as each is ready: in-process for one job or
    few items, else from a process pool in chunks (``work``, its data and ``batch`` must pickle). Each
    process opens ``batch`` over its items, and after each item does the ones it names next first (results
    still come in order). Stopping early (an interrupt) cancels the items not yet started; a worker that
    dies raises ``BrokenProcessPool`` after the others are killed."""
    if jobs <= 1 or len(items) < POOL_THRESHOLD:
        yield from _batch_results(work, items, argument, batch)
        return
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_worker_setup, initargs=(os.getpid(),))
    try:
        size = max(1, min(64, len(items) // (jobs * 8)))
        chunks = [items[start : start + size] for start in range(0, len(items), size)]
        with interrupts_held():  # workers are forked here; none may die of Ctrl-C before it ignores it
            outcomes = pool.map(_chunk_results, chunks, repeat((work, argument, batch)))
        for results in outcomes:
            yield from results
    except BrokenProcessPool:
        _kill_workers(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _chunk_results(chunk: Sequence[Item], job: tuple[Callable[[Item, Argument], Result], Argument, Optional[BatchOpener]]) -> list[Result]:
    return list(_batch_results(job[0], chunk, job[1], job[2]))


def _batch_results(
    work: Callable[[Item, Argument], Result], items: Sequence[Item], argument: Argument, batch: Optional[BatchOpener]
) -> Iterator[Result]:
    if batch is None:
        yield from (work(item, argument) for item in items)
        return
    with batch(items) as opened:
        first_position: dict[Item, int] = {}
        for position, item in enumerate(items):
            first_position.setdefault(item, position)
        results: dict[int, Result] = {}
        emitted = 0
        for position, item in enumerate(items):
            if position >= emitted and position not in results:  # else done early, maybe yielded already
                results[position] = work(item, argument)
                opened.done(item)
            while emitted in results:  # first, so that what the caller does with a result (the codemod
                yield results.pop(emitted)  # writes the file) happens before any later file is done
                emitted += 1
            for early in _drain(opened):
                if first_position[early] >= emitted and first_position[early] not in results:
                    results[first_position[early]] = work(early, argument)
                opened.done(early)


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
