"""The heap as the census sees it: which framework objects are alive, and which of them the long-lived state
of some packages reaches, found without running one line of the user's code and without keeping anything
alive once the call returns.

Why these rules:
- Only ``gc.get_objects`` and ``gc.get_referents`` look at objects: each runs the object's C ``tp_traverse``,
  never a Python method. So no ``__getattr__``, ``__eq__``, ``__hash__``, ``__iter__``, ``__repr__`` or
  property of a user class ever runs. Objects are told apart by ``id`` (never hashed), types by their
  ``__mro__`` read through ``type``'s own descriptors (never ``isinstance``, which may call ``__class__``
  or a metaclass's ``__instancecheck__``).
- The walk is breadth-first, one ``gc.get_referents`` call per chunk of a level, with every per-object step
  (filter, id, de-duplication) done by C iterators: it visits an object for a few hundred nanoseconds, so a
  census costs a few ``gc.collect()``. It always walks the whole state (every holder of a pin is wanted,
  and a second path to it may come last), and keeps where each object was first reached and which chunks
  reached something twice, so that naming each holder afterwards costs searches within single chunks.
- It does not enter: other modules and their globals (each selected module is its own root), classes (the
  classes a selected module defines are roots of their own; the rest belong to other packages), code
  objects, framework objects (a pinned module owns its submodules and tensors: they count as its bytes,
  not as pins of their own), and frames that are running (in any thread): a test's locals are not
  long-lived state. C extension state that has no ``tp_traverse`` is invisible to ``gc`` and to us.
"""
from __future__ import annotations

import gc
import sys
import types
import weakref
from bisect import bisect_right
from itertools import compress, filterfalse, repeat
from operator import is_
from typing import Any, Callable, Iterable, Iterator, Optional

# Read through type's and module's own descriptors: a metaclass or a module subclass cannot intercept them.
mro: Callable[[type], tuple] = type.__dict__["__mro__"].__get__
_type_name: Callable[[type], str] = type.__dict__["__name__"].__get__
_type_module: Callable[[type], Any] = type.__dict__["__module__"].__get__
_class_namespace: Callable[[type], Any] = type.__dict__["__dict__"].__get__  # a mappingproxy
_module_dict: Callable[[types.ModuleType], Any] = types.ModuleType.__dict__["__dict__"].__get__
_get_referents = gc.get_referents
_is_tracked = gc.is_tracked

WALK, FRAMEWORK, STOP = 0, 1, 2  # what the walk does with an object of a given type
_STOPPED_TYPES = (types.CodeType, types.ModuleType, type)  # and their subclasses
#: A class that says so holds what it holds only while objects it holds weakly live (the runtime's cache
#: state, installed or vendored): not long-lived state of its own, so the walk does not enter it. (An entry
#: under a key held strongly, a ``self`` with value equality, is then not reported either.)
_CONDITIONAL = "_weakglobals_holds_while_its_keys_live"
ATOMS = (str, int, float, bool, complex, bytes, type(None))
#: The test framework's own objects hold a test's fixtures, reports and items for as long as pytest needs
#: them (``item.funcargs`` until after the census has run): bookkeeping, not the library's long-lived state,
#: so the walk does not enter an instance of a class defined in these packages, or of a subclass of one
#: (a session, a config, a hook caller, the assertion-rewriting loader a test module's ``__loader__`` is).
#: Not ``unittest.mock``: a mock left in library state is the library's pin.
BOOKKEEPING = ("_pytest", "pytest", "pluggy", "xdist", "execnet", "py")
_UNITTEST_RUNNER = ("unittest.case", "unittest.suite", "unittest.result", "unittest.runner", "unittest.loader",
                    "unittest.main", "unittest.async_case")


def inherits(cls: type, bases: Iterable[type]) -> bool:
    """``issubclass`` by identity along the real ``__mro__``: no ``__subclasscheck__``, no virtual bases."""
    wanted = tuple(bases)
    return any(base is other for base in mro(cls) for other in wanted)


def class_lookup(cls: type, name: str) -> Any:
    """What ``name`` is in the first class of ``cls.__mro__`` that defines it (dict lookups with a str key),
    or None: a descriptor is returned as it is, never called."""
    for base in mro(cls):
        namespace = _class_namespace(base)
        if name in namespace:
            return namespace[name]
    return None


def class_dict(cls: type) -> dict:
    """The class's real namespace dict (behind its mappingproxy), as ``gc`` sees it."""
    return next(item for item in _get_referents(_class_namespace(cls)) if type(item) is dict)


def _bookkeeping(module: Optional[str]) -> bool:
    """Whether a class defined in ``module`` is the test framework's (a ``pytest_*`` plugin's included)."""
    if module is None:
        return False
    top = module.partition(".")[0]
    return top in BOOKKEEPING or top.startswith("pytest_") or module in _UNITTEST_RUNNER


def type_name(obj: object) -> str:
    return _type_name(type(obj))


def module_dict(module: types.ModuleType) -> dict:
    return _module_dict(module)


def defined_in(cls: type) -> Optional[str]:
    module = _type_module(cls)
    return module if type(module) is str else None


def defined_where(obj: object) -> Optional[str]:
    """The module a function, an ``lru_cache`` wrapper or a class says it was defined in (``__module__``
    read from the function's slot or the object's own ``__dict__``), or None."""
    if type(obj) is types.FunctionType:
        module = types.FunctionType.__dict__["__module__"].__get__(obj)
    elif inherits(type(obj), (type,)):
        return defined_in(obj)  # type: ignore[arg-type]
    else:
        descriptor = class_lookup(type(obj), "__dict__")
        namespace = descriptor.__get__(obj) if type(descriptor) is types.GetSetDescriptorType else None
        module = namespace.get("__module__") if type(namespace) is dict else None
    return module if type(module) is str else None


class Kinds:
    """What the walk does with the objects of each type, decided once per type and remembered by ``id``
    while the type lives (a weak reference to it drops the line when it dies: an id is never reused
    for another type while the line exists)."""

    def __init__(self, framework: tuple[type, ...]) -> None:
        self.framework = framework
        self.by_type: dict[int, int] = {}
        self._types: dict[int, weakref.ref] = {}

    def learn(self, classes: Iterable[type]) -> None:
        by_type, refs = self.by_type, self._types
        for cls in classes:
            key = id(cls)
            if key in by_type:
                continue
            bases = mro(cls)
            if (
                any(base is stopped for base in bases for stopped in _STOPPED_TYPES)
                or class_lookup(cls, _CONDITIONAL) is True
                or any(_bookkeeping(defined_in(base)) for base in bases)
            ):
                kind = STOP
            elif any(base is wanted for base in bases for wanted in self.framework):
                kind = FRAMEWORK
            else:
                kind = WALK

            def forget(_: weakref.ref, key: int = key) -> None:
                by_type.pop(key, None)
                refs.pop(key, None)

            refs[key] = weakref.ref(cls, forget)
            by_type[key] = kind

    def of(self, objects: list[object]) -> list[int]:
        """The kind of each object, in C iterators; types never seen before are learnt first."""
        try:  # no scan for unknown types (``None in kinds`` costs more than the lookups): a KeyError says so
            return list(map(self.by_type.__getitem__, map(id, map(type, objects))))
        except KeyError:
            self.learn(list(map(type, objects)))
            return list(map(self.by_type.__getitem__, map(id, map(type, objects))))

    def barred(self, objects: list[object], ids: list[int]) -> list[int]:
        """The ids of the objects the walk must not enter by their type: framework objects (a target is
        entered only where the walk says so) and the stopped kinds (classes, modules, code, the runtime's
        conditional holders)."""
        return list(compress(ids, self.of(objects)))  # WALK is 0: every other kind


def framework_objects(objects: list[object], kinds: Kinds) -> list[object]:
    """The framework objects among ``objects`` (types seen for the first time are learnt on the way)."""
    return list(compress(objects, map(FRAMEWORK.__eq__, kinds.of(objects))))


def closed_doors() -> set[int]:
    """The ids of what the walk must not enter whatever its type: every imported module's globals (a
    function's ``__globals__`` leads there) and every frame that is running (in any thread)."""
    doors = {id(module_dict(module)) for module in list(sys.modules.values()) if inherits(type(module), (types.ModuleType,))}
    doors.update(map(id, running_frames()))
    return doors


def running_frames() -> Iterator[types.FrameType]:
    """Every frame on every thread's stack: their locals are not long-lived state."""
    for frame in sys._current_frames().values():
        while frame is not None:
            yield frame
            frame = frame.f_back


STOP, TARGET = -1, -2  # what the walk's table holds for ids it must not enter (ints: ``list.count`` compares them cheaply)
SIZE = 8192  # objects per ``gc.get_referents`` call: the temporary lists stay small enough to be cheap
FEW = 16  # a chunk this small is walked one object at a time: each one's share of the next level is known


class Walk:
    """One breadth-first walk from ``roots`` (module and class namespace dicts) through what they reach, never
    entering ``stops`` nor a target, with what it takes to name afterwards every object of the walk that
    refers to a target or to any object on the way to one.

    A level is walked a chunk at a time: one ``gc.get_referents`` call for the chunk, the ids of what it
    yields looked up in one table in one C pass (``setdefault(key, key)`` returns the very int passed only
    for an id seen for the first time, so duplicates within a chunk need no table of their own). What a
    chunk reaches first is appended to the next level, and where each chunk's share starts is kept
    (``sources``), so that an object's parent is searched for in one chunk, never in a whole level; a chunk
    of a few objects (near the roots, where one object may hold a million) is walked one object at a time,
    so that there is nothing to search. A chunk that reaches a target (``to_targets``) or an object reached
    before (``again``: a second path to it) is kept by its place, and for the latter with the ids it
    yielded: that is all it takes to find every holder later, and it costs one ``list.count`` call on the
    chunks that reach anything not new to the walk (more on the few that reach a target or reach an object
    twice).
    """

    def __init__(self, roots: list[object], targets: dict[int, object], stops: set[int], kinds: Kinds) -> None:
        self.targets = targets
        self.levels: list[list[object]] = [list(roots)]
        # per level after the first: for each chunk of the level before, in order, where its share of this
        # level starts, and the chunk (start, stop)
        self.sources: list[tuple[list[int], list[tuple[int, int]]]] = [([], [])]
        self.to_targets: list[tuple[int, int, int, list[int]]] = []  # (depth, start, stop, target ids the chunk refers to)
        self.again: list[tuple[int, int, int, list[int]]] = []  # (depth, start, stop, ids of all it yields)
        self._parents: dict[tuple[int, int], Optional[int]] = {}  # (depth, index) -> its parent's index in the level before
        seen = dict.fromkeys(stops, STOP)
        seen.update(dict.fromkeys(targets, TARGET))
        seen.update((key, key) for key in map(id, roots) if key not in seen)
        setdefault, level, depth, wanted = seen.setdefault, self.levels[0], 0, set(targets)
        while level:
            following: list[object] = []
            offsets: list[int] = []
            chunks: list[tuple[int, int]] = []
            for start, stop in _chunks(len(level)):
                found = list(filter(_is_tracked, _get_referents(*level[start:stop])))
                ids = list(map(id, found))
                list(map(setdefault, kinds.barred(found, ids), repeat(STOP)))  # a target stays one
                returned = list(map(setdefault, ids, ids))
                offsets.append(len(following))
                chunks.append((start, stop))
                following.extend(compress(found, map(is_, returned, ids)))
                reached_before = len(ids) - (len(following) - offsets[-1])
                if reached_before:
                    others = reached_before - returned.count(STOP)  # targets, and objects reached a second time
                    if others:
                        hits = wanted.intersection(ids)
                        if hits:
                            self.to_targets.append((depth, start, stop, list(hits)))
                            others -= returned.count(TARGET)
                        if others:
                            self.again.append((depth, start, stop, ids))
            depth += 1
            self.levels.append(following)
            self.sources.append((offsets, chunks))
            level = following

    def paths_to_targets(self) -> Iterator[tuple[int, list[object]]]:
        """``(target id, chain)`` for every object of the walk that refers to a target: the objects from a root
        to the target, each referring to the next."""
        for depth, start, stop, keys in self.to_targets:
            for key, indices in self._referrers(depth, start, stop, set(keys)).items():
                for index in indices:
                    chain = self.chain(depth, index)
                    if chain is not None:
                        yield key, [*chain, self.targets[key]]

    def paths_to(self, keys: set[int]) -> Iterator[tuple[int, list[object]]]:
        """``(id, chain)`` for every object of the walk that refers to an object with one of these ids other
        than the one through which the walk first reached it (and, where they share a chunk, that one too):
        the chain ends at the referrer."""
        for depth, start, stop, ids in self.again:
            wanted = keys.intersection(ids)
            if wanted:
                for key, indices in self._referrers(depth, start, stop, wanted).items():
                    for index in indices:
                        chain = self.chain(depth, index)
                        if chain is not None:
                            yield key, chain

    def chain(self, depth: int, index: int) -> Optional[list[object]]:
        """The objects from a root to ``levels[depth][index]``, each referring to the next: each one's parent is
        searched for in the chunk of the level before that reached it first (once: parents are remembered).
        None if another thread changed a link since the walk saw it."""
        steps = [(depth, index)]
        while depth:
            parent = self._parents.get((depth, index), -1)
            if parent == -1:
                offsets, chunks = self.sources[depth]
                start, stop = chunks[bisect_right(offsets, index) - 1]
                key = id(self.levels[depth][index])
                found = self._referrers(depth - 1, start, stop, {key}, first=True)
                parent = self._parents[(depth, index)] = found[key][0] if found else None
            if parent is None:
                return None
            depth, index = depth - 1, parent
            steps.append((depth, index))
        return [self.levels[level][at] for level, at in reversed(steps)]

    def _referrers(self, depth: int, start: int, stop: int, keys: set[int], first: bool = False) -> dict[int, list[int]]:
        """For each of ``keys`` (which the walk saw the chunk ``levels[depth][start:stop]`` refer to), the indices
        in the level of the objects of the chunk that refer to it (with ``first``, one of them). Halves are
        asked which of the ids they hold, one ``gc.get_referents`` call each, for all the keys at once; a half
        is not asked when the other holds none of them, nor is the chunk itself."""
        level, found = self.levels[depth], {}  # type: ignore[var-annotated]

        def search(low: int, high: int, wanted: set[int], known: bool) -> set[int]:
            if not known or high - low == 1:  # a single object is always asked: reading an instance's
                # ``__dict__`` since the walk (naming a path does) can change what it refers to
                wanted = wanted.intersection(map(id, _get_referents(*level[low:high])))
                if not wanted:
                    return wanted
            if high - low == 1:
                for key in wanted:
                    found.setdefault(key, []).append(low)
                return wanted
            middle = (low + high) // 2
            left = search(low, middle, wanted, False)
            rest = wanted.difference(left) if first else wanted
            if rest:
                search(middle, high, rest, not left)  # the left holds none of them: the right holds them all
            return wanted

        search(start, stop, keys, True)
        return {key: sorted(indices) for key, indices in found.items()}


def _chunks(size: int) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` of each chunk of a level of ``size`` objects: ``SIZE`` objects each, or one object each
    for a level (or a level's tail) of at most ``FEW``."""
    for start in range(0, size, SIZE):
        stop = min(start + SIZE, size)
        if stop - start <= FEW:
            yield from ((index, index + 1) for index in range(start, stop))
        else:
            yield start, stop


def reachable(start: object, stops: set[int], kinds: Kinds, entered: dict[int, object]) -> list[object]:
    """Everything reachable from ``start`` (itself included) without entering ``stops``, nor what ``kinds``
    bars except the framework objects in ``entered``."""
    seen = dict.fromkeys(stops, STOP)
    seen[id(start)] = STOP
    setdefault, found, level = seen.setdefault, [start], [start]
    while level:
        following: list[object] = []
        for begin in range(0, len(level), SIZE):
            referents = list(filter(_is_tracked, _get_referents(*level[begin:begin + SIZE])))
            ids = list(map(id, referents))
            list(map(setdefault, filterfalse(entered.__contains__, kinds.barred(referents, ids)), repeat(STOP)))
            following.extend(compress(referents, map(is_, map(setdefault, ids, ids), ids)))
        found.extend(following)
        level = following
    return found
