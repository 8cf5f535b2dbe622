"""The runtime that fixed code imports: a dict, a set, a list and a cache that never keep torch modules,
parameters or tensors alive, and otherwise behave as the containers they replace.

Stdlib only (Python 3.9+). Each part is a module of its own, importing nothing but the standard library,
``core`` (the decision of what is held weakly) and the part it builds on, if any, so that ``python -m
fixes.apply`` vendors only the parts a project's fixed files use (and those they build on), assembled into
one file (``fixes/vendor.py``):

- ``maps``: ``WeakIdMap`` (a dict, a defaultdict);
- ``strictmaps``: ``StrictWeakIdMap`` (a ``WeakKeyDictionary``), built on ``maps``;
- ``values``: ``WeakValueMap`` (a dict from names to modules or tensors), built on ``maps``;
- ``sets``: ``WeakIdSet`` and ``StrictWeakIdSet`` (a ``WeakSet``);
- ``lists``: ``WeakIdList``;
- ``caches``: ``weak_lru_cache`` and ``weak_cache`` (``functools.lru_cache`` and ``functools.cache``).

Every public name is importable from here, as it was when the runtime was one file (``CacheInfo`` too).
"""
from __future__ import annotations

from .caches import CacheInfo, weak_cache, weak_lru_cache, weak_shared_cache, weak_shared_lru_cache
from .lists import WeakIdList
from .maps import WeakIdMap
from .sets import StrictWeakIdSet, WeakIdSet
from .strictmaps import StrictWeakIdMap
from .values import WeakValueMap

#: The parts, in the order a vendored copy assembles them (``core`` first: the others use it; a part after
#: the one it builds on).
PARTS = ("core", "maps", "strictmaps", "values", "sets", "lists", "caches")
__all__ = [
    "StrictWeakIdMap",
    "StrictWeakIdSet",
    "WeakIdList",
    "WeakIdMap",
    "WeakIdSet",
    "WeakValueMap",
    "weak_cache",
    "weak_lru_cache",
    "weak_shared_cache",
    "weak_shared_lru_cache",
]
