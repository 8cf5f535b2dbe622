"""The runtime census: which objects a piece of code created (modules, parameters, tensors, extra types)
are still held by the long-lived state of some packages once it is done, how many bytes of tensor storage
they keep, and which static finding of the linter each one confirms.

    from flake8_weakglobals.census import census

    with census(packages=["deepspeed"]) as report:
        run_the_test()
    for pin in report.pins: ...

``pytest --weakglobals`` (``pytest_plugin.py``) runs one per test. Long-lived state is what the walk starts
from: each selected module's globals, the attributes of the classes it defines, and what they reach (the
containers, the instance state of module-level objects, ``functools.lru_cache`` wrappers whose C cache
``gc.get_referents`` yields). Framework objects alive when the census started are not the code's, even if
it stores them: the census freezes them when it starts and lists only what was created since
(``new_objects.py``), so an address reused by a new object reads as new; where that cannot be done, it
lists the whole heap and remembers each framework object by ``id`` and a weak reference. How the heap is
walked, and what is not walked, is in ``heap.py``.
"""
from __future__ import annotations

import gc
import os
import re
import sys
import types
import weakref
from contextlib import contextmanager
from itertools import compress, count, repeat
from operator import is_, not_, or_
from pathlib import Path
from typing import Iterator, Optional, Sequence

from ..frontends.check_one_file import check_file
from ..frontends.config import Settings
from .new_objects import close_listing, listed, open_listing, relisted, restart, usable
from .heap import (
    Kinds,
    Walk,
    class_dict,
    closed_doors,
    defined_in,
    defined_where,
    framework_objects,
    inherits,
    module_dict,
    reachable,
    type_name,
)
from .pin_paths import COMPILER_GLOBALS, Described, every_name, qualified_name
from .report import ACCEPTED, COMPILED, CONSTANT_CACHE, Confirmation, Pin, Report
from .tensor_bytes import storages

_IMPORT_SYSTEM_NAMES = frozenset({"__loader__", "__spec__", "__builtins__"})
Compared = tuple[list[int], list[weakref.ref], list[bool]]  # what ``compare`` returns
Listing = tuple[list[object], Compared]  # the whole heap's framework objects, compared with those remembered
_PACKAGE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


class _Marker:
    """Something a weak reference can reach."""


_SAME = _Marker()
_NOT_WEAKLY = weakref.ref(_SAME)  # remembered for a framework object that takes no weak reference: known by its id alone
_GONE = weakref.ref(_Marker())  # dead at once: what an id the census never saw reaches
_call = weakref.ref.__call__


def compare(framework: list[object], alive: dict[int, weakref.ref]) -> Compared:
    """For each framework object: its id, the weak reference ``alive`` remembers under that id (a dead one
    if none), and whether that reference still reaches this very object. An object that died and left its
    address to a new one does not: that is what makes a reused address read as new. In C iterators: tens
    of thousands of tensors cost milliseconds."""
    ids = list(map(id, framework))
    refs = list(map(alive.get, ids, repeat(_GONE)))
    reached = list(map(_call, refs))
    return ids, refs, list(map(or_, map(is_, reached, framework), map(is_, reached, repeat(_SAME))))


class Census:
    """One census after another over the same packages (a session's tests): ``start`` remembers what is
    alive, ``check`` reports the pins created since, ``finish`` reports and starts again from there."""

    def __init__(self, packages: Sequence[str], extra_types: Sequence[str] = (), settings: Optional[Settings] = None,
                 whole_heap: bool = False) -> None:
        """``whole_heap``: list the whole heap at each census and compare it with what was alive at the
        start, as the census does anyway where ``gc.freeze`` cannot hide the old objects (``new_objects``)."""
        bad = [name for name in packages if not _PACKAGE.fullmatch(name)]
        if bad:
            raise ValueError(f"not a package name: {bad[0]!r}")
        self.packages = tuple(packages)
        self.extra_types = tuple(extra_types)
        self.settings = settings or Settings(extra_types=frozenset(extra_types))
        self._kinds: Optional[Kinds] = None
        self._started = False
        # what is new: objects listed since a freeze (new_objects.py), or else compared with the whole heap's
        self._whole_heap = whole_heap or not usable()
        self._listing: Optional[int] = None  # its token in new_objects while the heap is frozen for this census
        self._handed: set[int] = set()  # ids of framework objects listed before a freeze hid them
        self._alive: dict[int, weakref.ref] = {}  # whole heap: id -> a weak reference to the framework object (or _NOT_WEAKLY)
        self._modules: set[str] = set()
        self._findings: dict[str, list] = {}

    @property
    def started(self) -> bool:
        return self._started

    def start(self) -> None:
        """Remember what is alive now: from here on, what is created is new."""
        self._start_from(None)

    def check(self, test: Optional[str] = None) -> Report:
        """The pins created since ``start`` (or the last ``finish``), without starting again."""
        return self._census(self._new()[0], test)

    def finish(self, test: Optional[str] = None, walk: bool = True) -> Report:
        """``check`` (unless ``walk`` is False), then start again from what is alive now (on the whole-heap
        path, from the listing the check made: one pass over the heap, not two)."""
        new, listing = self._new() if walk else ({}, None)
        report = self._census(new, test)
        del new
        self._start_from(listing)
        return report

    def close(self) -> None:
        """Done with censuses: the heap is no longer frozen for this one."""
        if self._listing is not None:
            close_listing(self._listing)
            self._listing = None
        self._started = False

    # --- what is new ---

    def _start_from(self, listing: Optional[Listing]) -> None:
        if self._whole_heap:
            self._remember(*(listing or self._list_whole_heap()))
        else:
            if self._listing is None:
                self._listing = open_listing(self._keep)
            self._handed = set()
            restart(self._listing)
        self._started = True
        self._modules = set(sys.modules)

    def _new(self) -> tuple[dict[int, object], Optional[Listing]]:
        """The framework objects created since the census started, by id; on the whole-heap path, also the
        listing it compared (for ``finish`` to start again from)."""
        if self._whole_heap:
            listing = self._list_whole_heap()
            framework, (ids, _, same) = listing
            return dict(zip(compress(ids, map(not_, same)), compress(framework, map(not_, same)))), listing
        objects = listed()
        if objects is None:  # the test froze or unfroze the heap itself: what is new cannot be told
            return {}, None
        new = {id(obj): obj for obj in self._framework(objects)}
        if self._handed:  # a full collection hid some: listed again, by the ids they had
            handed = self._handed
            new.update((id(obj), obj) for obj in self._framework(relisted()) if id(obj) in handed)
        return new, None

    def _list_whole_heap(self) -> Listing:
        framework = self._framework(gc.get_objects())
        return framework, compare(framework, self._alive)

    def _keep(self, objects: list[object]) -> None:
        """The ids of the framework objects among those listed before a freeze hides them (a full
        collection, another census starting), to be counted as new all the same. Ids, not references: a
        weak reference would show in ``weakref.getweakrefcount``. An object at such an id later was made
        after the census started (the one listed, or a newer one at its address), so it is new either way."""
        self._handed.update(map(id, self._framework(objects)))

    def _framework(self, objects: list[object]) -> list[object]:
        return framework_objects(objects, self._current_kinds())

    def _current_kinds(self) -> Kinds:
        framework = self._framework_classes()
        known = self._kinds.framework if self._kinds else None
        if known is None or len(known) != len(framework) or any(a is not b for a, b in zip(known, framework)):
            self._kinds = Kinds(framework)
        return self._kinds  # type: ignore[return-value]

    def _framework_classes(self) -> tuple[type, ...]:
        """``nn.Module``, ``torch.Tensor`` and the extra types, as far as they are imported (no import here:
        a class nobody imported has no instances)."""
        found = (_imported_class(name) for name in ("torch.nn.Module", "torch.Tensor", *self.extra_types))
        return tuple(cls for cls in found if cls is not None)

    def _remember(self, framework: list[object], compared: Compared) -> None:
        ids, refs, same = compared
        refs = list(refs)
        for index in compress(count(), map(not_, same)):
            try:
                refs[index] = weakref.ref(framework[index])
            except TypeError:
                refs[index] = _NOT_WEAKLY
        self._alive = dict(zip(ids, refs))

    # --- the walk and its report ---

    def _census(self, new: dict[int, object], test: Optional[str]) -> Report:
        report = Report(self.packages)
        if not new:
            return report
        kinds = self._current_kinds()
        roots, names, dunders = self._roots()
        doors = closed_doors() | dunders
        tensor_class = _imported_class("torch.Tensor")
        for target, holders in self._holders(Walk(roots, new, doors, kinds), names).items():
            obj = new[target]
            held = reachable(obj, doors, kinds, new)
            tensors = [item for item in held if id(item) in new and tensor_class is not None and inherits(type(item), (tensor_class,))]
            kept = storages(tensors)
            for module, described in holders:
                report.pins.append(self._pin(obj, module, described, kept, test))
        return report

    def _holders(self, walk: Walk, names: dict[int, tuple[str, str]]) -> dict[int, list[tuple[str, Described]]]:
        """Per target the walk reached, one path per container that holds it (named as in ``describe``: the
        path's part before its first item, or a global or attribute itself). Every object of the walk that
        refers to the target gives a path, and so does every object that refers to one on the way from a
        container to it (a record two maps hold, a tuple two lists share), found again for each new holder's
        path. A container that holds another holder's container, or the object owning it, is not listed:
        fixing that holder frees the target for both. Each container lists the target once, with the first
        path found through it."""
        holders: dict[int, dict[object, tuple[str, Described]]] = {}
        inward: dict[int, list[tuple[int, list[object]]]] = {}  # id of an object inside a container -> (target, the rest of the way)

        def consider(target: int, chain: list[object]) -> None:
            module, root = names[id(chain[0])]
            module, root, chain = self._home(module, root, chain)
            found = holders.setdefault(target, {})
            for described in every_name(chain, root):
                holder = described.path if described.container == described.path else id(chain[described.at])
                if holder in found:
                    continue
                found[holder] = (module, described)
                for index in range(described.at + 1, len(chain) - 1):
                    inward.setdefault(id(chain[index]), []).append((target, chain[index:]))

        for target, chain in walk.paths_to_targets():
            consider(target, chain)
        asked: set[int] = set()
        while len(asked) < len(inward):
            keys = set(inward).difference(asked)
            asked.update(keys)
            for key, chain in walk.paths_to(keys):
                on_chain = set(map(id, chain))
                for target, rest in list(inward[key]):
                    if on_chain.isdisjoint(map(id, rest)):
                        consider(target, [*chain, *rest])
        return {target: list(found.values()) for target, found in holders.items()}

    def _roots(self) -> tuple[list[dict], dict[int, tuple[str, str]], set[int]]:
        """Per selected module (by name), its globals and the namespaces of the classes it defines; for
        each of those dicts, ``(module name, the name the path starts with)``; and the ids of what the
        import system put in the globals (``__loader__``, ``__spec__``, ``__builtins__``): no route into
        a module's state (a test module's loader is pytest's, and leads to its session), unless the module
        also holds the same object under a name of its own."""
        roots, names, dunders = [], {}, set()
        for name, module in sorted(sys.modules.items(), key=lambda item: item[0]):
            if not self._selected(name) or not inherits(type(module), (types.ModuleType,)):
                continue
            namespace = module_dict(module)
            roots.append(namespace)
            names[id(namespace)] = (name, name)
            own = set()
            for key, value in dict.items(namespace):
                if type(key) is not str:
                    continue
                if key in _IMPORT_SYSTEM_NAMES:
                    dunders.add(id(value))
                else:
                    own.add(id(value))
                if inherits(type(value), (type,)) and defined_in(value) == name:
                    body = class_dict(value)
                    if id(body) not in names:
                        roots.append(body)
                        names[id(body)] = (name, f"{name}.{key}")
            dunders.difference_update(own)
        return roots, names, dunders

    def _selected(self, module: str) -> bool:
        return any(module == package or module.startswith(package + ".") for package in self.packages)

    def _pin(self, target: object, module: str, described: Described, kept: dict[str, int], test: Optional[str]) -> Pin:
        path, container, _, by_name, plain_cache_key = described
        note = "" if module in self._modules else "its module was first imported during the test: maybe its import-time state"
        root = qualified_name(container)
        return Pin(
            path=path, container=container, root=root, kind=type_name(target), test=test,
            storages=kept, confirms=self._confirmation(module, root), note=note,
            by_name=by_name, identity=f"{os.getpid()}:{id(target):#x}",
            intended=self._intended(target, root, plain_cache_key),
        )

    def _intended(self, target: object, root: str, plain_cache_key: bool) -> str:
        """Why a pin is held on purpose, or "": a container accepted in ``[tool.weakglobals]``, a graph
        torch.compile keeps in a module's globals, or a cache of constant tensors (a plain tensor, neither a module nor a parameter, under a key of plain values)."""
        if root in self.settings.census_accept:
            return ACCEPTED
        if f".{root.rpartition('.')[2]}".startswith(COMPILER_GLOBALS):
            return COMPILED
        if plain_cache_key:
            tensor, module, parameter = (_imported_class(name) for name in ("torch.Tensor", "torch.nn.Module", "torch.nn.Parameter"))
            kind = type(target)
            if tensor is not None and inherits(kind, (tensor,)) and not any(
                cls is not None and inherits(kind, (cls,)) for cls in (module, parameter)
            ):
                return CONSTANT_CACHE
        return ""

    def _home(self, module: str, root: str, chain: list[object]) -> tuple[str, str, list[object]]:
        """A function, cache or class reached through a module that imports it is named where it is defined
        (``from .utils import f`` in ``convert.py``: ``utils.f``), where the linter reports it."""
        if root != module or len(chain) < 2:
            return module, root, chain
        home = defined_where(chain[1])
        namespace = _namespace(home) if home and home != module and self._selected(home) else None
        name = next((key for key, value in dict.items(namespace) if value is chain[1] and type(key) is str), None) if namespace else None
        if name is None:
            return module, root, chain
        return home, home, [namespace, *chain[1:]]  # type: ignore[list-item]

    def _confirmation(self, module: str, name: str) -> Optional[Confirmation]:
        """The linter's finding on the container, from the same analysis ``flake8 --select WG`` runs on the
        module's file: the longest dotted prefix of the container that a finding names."""
        namespace = _namespace(module)
        filename = namespace.get("__file__") if namespace is not None else None
        if type(filename) is not str or not filename.endswith(".py"):
            return None
        if filename not in self._findings:
            self._findings[filename] = check_file(Path(filename), self.settings).findings
        attributes = name[len(module) + 1:].split(".") if name.startswith(module + ".") else []
        by_name = {finding.name: finding for finding in self._findings[filename]}
        for end in range(len(attributes), 0, -1):
            finding = by_name.get(".".join(attributes[:end]))
            if finding is not None:
                return Confirmation(finding.code, _shown(Path(filename), module), finding.line)
        return None


def _imported_class(name: str) -> Optional[type]:
    """The class ``package.module.Name`` if its module is imported, read from the module's dict."""
    module, _, attribute = name.rpartition(".")
    namespace = _namespace(module)
    value = namespace.get(attribute) if namespace is not None else None
    return value if value is not None and inherits(type(value), (type,)) else None


def _namespace(module: str) -> Optional[dict]:
    """The globals of an imported module (anything else in ``sys.modules`` is ignored), read without getattr."""
    loaded = sys.modules.get(module)
    return module_dict(loaded) if inherits(type(loaded), (types.ModuleType,)) else None


def _shown(path: Path, module: str) -> str:
    """A module's file as ``package/sub/module.py``: the part of its path its import name accounts for."""
    depth = module.count(".") + (1 if path.name == "__init__.py" else 0)
    return "/".join(path.parts[-(depth + 1):])


@contextmanager
def census(packages: Sequence[str], extra_types: Sequence[str] = (), settings: Optional[Settings] = None,
           test: Optional[str] = None) -> Iterator[Report]:
    """Report what the body created that the packages' long-lived state still holds when it ends.

    The report is filled when the block exits (also when it raises); its pins hold no reference to any
    object. Objects held only by the body's local variables are not pins.
    """
    engine = Census(packages, extra_types, settings)
    engine.start()
    report = Report(engine.packages)
    try:
        yield report
    finally:
        try:
            report.pins.extend(engine.check(test).pins)
        finally:
            engine.close()
