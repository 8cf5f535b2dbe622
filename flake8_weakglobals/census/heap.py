"""The heap as the census sees it: which framework objects are alive, and which of them the long-lived state
of some packages reaches, found without running one line of the user's code and without keeping anything
alive once the call returns.

Why these rules:
- Only ``gc.get_objects`` and ``gc.get_referents`` look at objects: each runs the object's C ``tp_traverse``,
  never a Python method. So no ``__getattr__``, ``__eq__``, ``__hash__``, ``__iter__``, ``__repr__`` or
  property of a user class ever runs. Objects are told apart by ``id`` (never hashed), types by their
  ``__mro__`` read through ``type``'s own descriptors (never ``isinstance``, which may call ``__class__``
  or a metaclass's ``__instancecheck__``).
- The walk is breadth-first, one ``gc.get_referents`` call per level of the whole frontier, with every
  per-object step (filter, id, de-duplication) done by C iterators: it visits an object for a few dozen
  nanoseconds, so a census costs about what one ``gc.collect()`` costs.
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
from itertools import compress, repeat
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
            if any(base is stopped for base in bases for stopped in _STOPPED_TYPES) or class_lookup(cls, _CONDITIONAL) is True:
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


class Snapshot:
    """One pass over ``gc.get_objects()``: the live framework objects, and the ids the walk must not enter
    (classes, modules, module globals, code, running frames)."""

    def __init__(self, kinds: Kinds) -> None:
        objects = gc.get_objects()
        kind_of = list(map(kinds.by_type.get, map(id, map(type, objects))))
        if None in kind_of:  # types never seen before: learn them, then look again
            kinds.learn(map(type, compress(objects, map(is_, kind_of, repeat(None)))))
            kind_of = list(map(kinds.by_type.__getitem__, map(id, map(type, objects))))
        special, special_kinds = list(compress(objects, kind_of)), list(filter(None, kind_of))  # WALK is 0
        del objects, kind_of
        self.framework: list[object] = [obj for obj, kind in zip(special, special_kinds) if kind == FRAMEWORK]
        stopped = [obj for obj, kind in zip(special, special_kinds) if kind == STOP]
        modules = [obj for obj in stopped if type(obj) is types.ModuleType or inherits(type(obj), (types.ModuleType,))]
        self.stops: set[int] = set(map(id, stopped))
        self.stops.update(id(module_dict(module)) for module in modules)
        self.stops.update(map(id, running_frames()))


def running_frames() -> Iterator[types.FrameType]:
    """Every frame on every thread's stack: their locals are not long-lived state."""
    for frame in sys._current_frames().values():
        while frame is not None:
            yield frame
            frame = frame.f_back


class Hit:
    """A target the walk reached: the objects from a root to it, first to last."""

    def __init__(self, chain: list[object]) -> None:
        self.chain = chain


def walk(roots: list[list[dict]], targets: dict[int, object], stops: set[int]) -> list[Hit]:
    """Breadth-first from each root (a module's dict and its classes' dicts) to the ``targets`` (by id),
    never entering ``stops`` nor a target. An object reached from several roots is reported once, under
    the first; the walk ends as soon as every target is found."""
    seen = Seen(stops)
    seen.add(targets)
    remaining = set(targets)
    hits: list[Hit] = []
    for start in roots:
        if not remaining:
            break
        seen.add(map(id, start))
        levels, found = [start], []
        while levels[-1] and remaining:
            level: list[object] = []
            for chunk in chunks(levels[-1]):
                by_id = referents(chunk)
                reached = remaining.intersection(by_id)
                if reached:
                    remaining -= reached
                    found.extend((len(levels), by_id[key]) for key in reached)
                level.extend(seen.fresh(by_id))
            levels.append(level)
        hits.extend(Hit(chain_to(levels, depth, target)) for depth, target in found)
    return hits


class Seen:
    """The ids already visited (or never to visit), as the keys of a dict: ``fresh`` marks and returns the
    new ones in one C pass, one table operation per object (``setdefault`` returns this pass's mark only
    for a key it just inserted)."""

    def __init__(self, ids: Iterable[int]) -> None:
        self._ids: dict[int, object] = dict.fromkeys(ids)

    def add(self, ids: Iterable[int]) -> None:
        self._ids.update(dict.fromkeys(ids))

    def fresh(self, by_id: dict[int, object]) -> Iterator[object]:
        mark = object()
        return compress(by_id.values(), map(is_, map(self._ids.setdefault, by_id, repeat(mark)), repeat(mark)))


def chunks(objects: list[object], size: int = 8192) -> Iterator[list[object]]:
    """A level in slices: the temporary tables stay small enough to be cheap (a level may hold millions)."""
    for start in range(0, len(objects), size):
        yield objects[start:start + size]


def referents(chunk: list[object]) -> dict[int, object]:
    """What ``chunk`` refers to that ``gc`` tracks (atoms cannot refer to anything), each once, by id."""
    found = list(filter(_is_tracked, _get_referents(*chunk)))
    return dict(zip(map(id, found), found))


def chain_to(levels: list[list[object]], level: int, target: object) -> list[object]:
    """The objects from a root to ``target`` (found at ``level``): each one's parent is found in the level
    before by halving it, asking ``gc.get_referents`` of each half whether it holds the child."""
    chain = [target]
    for depth in range(level - 1, -1, -1):
        candidates, child = levels[depth], id(chain[-1])
        while len(candidates) > 1:
            half = len(candidates) // 2
            candidates = candidates[:half] if child in map(id, _get_referents(*candidates[:half])) else candidates[half:]
        if not candidates or child not in map(id, _get_referents(*candidates)):
            break  # changed under us by another thread: the path stops here
        chain.append(candidates[0])
    chain.reverse()
    return chain


def reachable(start: object, stops: set[int]) -> list[object]:
    """Everything reachable from ``start`` (itself included) without entering ``stops``."""
    seen = Seen(stops)
    seen.add((id(start),))
    found, level = [start], [start]
    while level:
        level = [obj for chunk in chunks(level) for obj in seen.fresh(referents(chunk))]
        found.extend(level)
    return found
