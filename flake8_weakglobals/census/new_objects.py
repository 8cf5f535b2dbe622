"""The objects created since a census started, listed at a cost that grows with them, not with the heap.

``gc.freeze()`` moves every object the collector tracks into the permanent generation, which
``gc.get_objects()`` does not list. So freezing when a census starts makes a later listing hold only what
was tracked since: a test's new objects, not the hundreds of thousands torch and pytest keep (listing and
sorting those was most of a census's cost).

Why the care around it:
- **Outcomes stay the same.** A frozen object is never collected, so a test that drops a cycle made
  before the census started and calls ``gc.collect()`` would see it survive. Before every full
  (generation 2) collection a ``gc.callbacks`` entry hands what is new to every open census and
  unfreezes the heap; after it, the heap is frozen again. A census keeps the ids of what it was handed,
  never a reference (a weak one would show in ``weakref.getweakrefcount``), and finds those objects again
  in one pass over the heap (``relisted``): only the tests that run a full collection pay for it. Before
  each freeze of its own the census collects the young generations (what a test left in cycles, as the
  next collection would have), so that no garbage waits frozen for a full collection.
- **Several censuses may be open at once** (the plugin's around a test, and the test's own ``census()``):
  every freeze first hands what is new to each of them.
- **Someone else's** ``gc.freeze()`` or ``gc.unfreeze()`` would make a listing wrong. Two sentinels tell:
  one frozen with the heap (listed again only after an unfreeze) and one made after it (missing only after
  a freeze). A census that sees either reports nothing for that test, and freezes again for the next.
  Their freeze is left alone meanwhile: a full collection does not unfreeze it (code that freezes the
  heap to make its own collections cheap stays cheap).
- ``usable()`` checks once that this interpreter behaves so (a free-threaded or future collector might
  list frozen objects), and that nobody froze objects before us; where not, a census lists the whole heap.
"""
from __future__ import annotations

import gc
import weakref
from itertools import repeat
from operator import is_
from typing import Callable, Optional

Keep = Callable[[list[object]], None]  # what a census does with the objects listed before a freeze hides them


class _Sentinel:
    """A tracked object whose presence in a listing says whether the heap is frozen as we left it."""


_keepers: dict[int, weakref.WeakMethod] = {}  # per open census: its ``keep``, held weakly
_tokens = iter(range(1, 1 << 62))
_sentinels: list[_Sentinel] = []  # [frozen with the heap, made after the last freeze]
_usable: list[bool] = []  # the probe's answer, once
_paused: list[bool] = [False]  # the full collection under way found the heap frozen by someone else


def usable() -> bool:
    """Whether freezing hides objects from ``gc.get_objects()`` here, and nobody else has frozen any."""
    if not _usable:
        probe = _Sentinel()
        works = False
        if hasattr(gc, "freeze") and gc.get_freeze_count() == 0:
            gc.freeze()
            try:
                works = not _listed(gc.get_objects(), probe)
            finally:
                gc.unfreeze()
        _usable.append(works)
    return _usable[0]


def open_listing(keep: Keep) -> int:
    """Register a census by its bound ``keep`` method, held weakly: a census dropped without
    ``close_listing`` is forgotten, and the next full collection unfreezes the heap if it was the last
    (not at once: its death may come in the middle of a collection). Returns its token."""
    if _around_full_collections not in gc.callbacks:
        gc.callbacks.append(_around_full_collections)
    token = next(_tokens)
    _keepers[token] = weakref.WeakMethod(keep, lambda _, token=token: _keepers.pop(token, None))  # type: ignore[arg-type]
    return token


def restart(token: int) -> None:
    """From now on, ``listed`` holds only what is created from here: hand what is new to the other open
    censuses, and freeze."""
    gc.collect(1)
    _hand_over(skip=token)
    _freeze()


def listed() -> Optional[list[object]]:
    """The objects tracked since the last freeze, or None if someone else froze or unfroze the heap."""
    objects = gc.get_objects()
    return objects if _as_we_left_it(objects) else None


def relisted() -> list[object]:
    """Every object, frozen or not, listed once and frozen again (what is new handed to every census
    first): for a census that must find by id the objects a full collection froze. It costs a pass over the
    heap, in the tests that run a full collection."""
    _hand_over()
    gc.unfreeze()
    try:
        return gc.get_objects()
    finally:
        _freeze()


def close_listing(token: int) -> None:
    """Forget a census; with the last one gone, unfreeze the heap and leave the collector alone."""
    if _keepers.pop(token, None) is not None and not _keepers:
        if _around_full_collections in gc.callbacks:
            gc.callbacks.remove(_around_full_collections)
        _thaw()


def _thaw() -> None:
    gc.unfreeze()
    _sentinels.clear()


def _freeze() -> None:
    if not _sentinels:
        _sentinels.append(_Sentinel())
    gc.freeze()
    _sentinels[1:] = [_Sentinel()]


def _hand_over(objects: Optional[list[object]] = None, skip: int = 0) -> None:
    objects = gc.get_objects() if objects is None else objects
    for token, keep in list(_keepers.items()):
        method = keep()
        if method is not None and token != skip:
            method(objects)


def _around_full_collections(phase: str, info: dict) -> None:
    """A full collection sees the whole heap, as it would without a census; but where the code under test
    froze the heap itself (to make its own collections cheap), its freeze is left alone."""
    if info.get("generation") != 2:
        return
    if not _keepers:  # every census was dropped unclosed
        if _sentinels:
            _thaw()
        return
    if phase == "start":
        objects = gc.get_objects()
        _paused[:] = [not _as_we_left_it(objects)]
        if not _paused[0]:
            _hand_over(objects)
            gc.unfreeze()
    elif not _paused[0]:
        _freeze()


def _as_we_left_it(objects: list[object]) -> bool:
    """Whether ``objects`` (a listing) is what our last freeze left: the sentinel frozen with the heap is
    not in it, and the one made after is."""
    if len(_sentinels) < 2:
        return False
    frozen, young = _sentinels
    return not _listed(objects, frozen) and _listed(objects, young)


def _listed(objects: list[object], sentinel: object) -> bool:
    return any(map(is_, objects, repeat(sentinel)))
