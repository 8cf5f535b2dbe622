"""How a pin is named: the chain of objects the walk found, from a module's globals to the pinned object,
written as a reader would write the expression that reaches it (``deepspeed.utils.debug.module_names[<Linear
at 0x7f…>]``, ``rotary.RotaryEmbedding.forward <lru_cache>[(<RotaryEmbedding at 0x7f…>, 16)][0]``).

Every step is found as the walk found it, without user code: a dict's entries through ``dict.items``
called on the dict (C, even for a subclass), sequences through ``tuple``/``list``'s own iterators, attributes
through the ``__dict__`` and slot descriptors the class defines (never ``getattr``), keys and values shown
by their type and address unless they are plain strings, numbers or tuples of them (never ``repr``).
"""
from __future__ import annotations

import functools
import re
import sys
import types
from itertools import compress, count, islice, repeat
from operator import is_, or_
from typing import Any, Iterator, NamedTuple, Optional

from .heap import ATOMS, class_dict, class_lookup, inherits, mro, type_name

_LRU_WRAPPER = functools._lru_cache_wrapper  # type: ignore[attr-defined]
_FUNCTION = {
    "__closure__": " <closure>", "__defaults__": " <defaults>", "__kwdefaults__": " <defaults>", "__dict__": "",
}
#: The globals torch.compile installs in a compiled function's module (its graph, and where a graph break
#: resumes): torch's own, freed by ``torch._dynamo.reset()``.
COMPILER_GLOBALS = (".__compiled_fn_", ".__resume_at_")
_ITEM = re.compile(r"[\[{]| -> ")
_ANNOTATION = re.compile(r" <[a-z_]+>")


class Described(NamedTuple):
    """A chain written out: the whole path, its container (everything before its first item: ``[...]``,
    ``{...}``, `` -> <...>``), which object of the chain that container is, whether the first item is a
    string key (``REGISTRY['bert']``: a map keyed by names, which WG008 reports only with evidence about its
    values), and whether the path goes through an ``lru_cache`` entry under a key of plain values."""

    path: str
    container: str
    at: int  # index in the chain of the container's object; without an item, the parent of the last object
    by_name: bool
    plain_cache_key: bool = False


def describe(chain: list[object], root: str) -> Described:
    """The path of ``chain`` (a module's or class's namespace dict first) as one expression. A mock on the
    way is the container: what it records of its calls (``call_args``, ``mock_calls``,
    ``call_args_list``) is one holder's bookkeeping, not several containers."""
    parts, namespace, first = [root], True, None
    mock = _mock_class()
    for index, (parent, child) in enumerate(zip(chain, chain[1:])):
        label, namespace = step(parent, child, namespace)
        if first is None and mock is not None and inherits(type(parent), (mock,)) and index > 0:
            first = index
            container, by_name = "".join(parts), False
        if first is None and _ITEM.match(label):
            first = index
            container = "".join(parts)
            by_name = inherits(type(parent), (dict,)) and label.startswith("[") and any(
                value is child and type(key) is str for key, value in dict.items(parent)
            )
        parts.append(label)
    path = "".join(parts)
    if len(parts) > 2 and parts[1].startswith(COMPILER_GLOBALS) and (first is None or first > 1):
        return Described(path, parts[0] + parts[1], 1, False)  # one global, however many attributes lead on
    if first is None:
        return Described(path, path, max(len(chain) - 2, 0), False)
    return Described(path, container, first, by_name, _through_a_plain_cache_key(chain))


def _mock_class() -> Optional[type]:
    """``unittest.mock.NonCallableMock``, the base of every mock, if a test imported ``unittest.mock``."""
    mock = sys.modules.get("unittest.mock")
    namespace = types.ModuleType.__dict__["__dict__"].__get__(mock) if type(mock) is types.ModuleType else {}
    found = namespace.get("NonCallableMock")
    return found if type(found) is type else None


def _through_a_plain_cache_key(chain: list[object]) -> bool:
    """Whether the chain enters an ``lru_cache`` (the wrapper, then its C cache dict) under a key made of
    plain values only: such a cache is bounded by those values, whoever fills it first."""
    for index in range(len(chain) - 2):
        if type(chain[index]) is _LRU_WRAPPER and type(chain[index + 1]) is dict:
            cache, entry = chain[index + 1], chain[index + 2]
            found = _first(map(is_, dict.values(cache), repeat(entry)))  # type: ignore[arg-type]
            return found is not None and plain_key(next(islice(dict.keys(cache), found, None)))  # type: ignore[arg-type]
    return False


def plain_key(key: object) -> bool:
    """A value that says nothing about any object's lifetime: an atom, a tuple of plain values, a class
    (``typed=True``), ``lru_cache``'s own keyword marker, or one of torch's value types (dtype, device,
    ``Size``, layout, memory format). Types compared by identity: no user code runs."""
    kind = type(key)
    if any(kind is atom for atom in ATOMS) or kind is object or inherits(kind, (type,)):
        return True
    if kind is tuple:
        return all(plain_key(item) for item in tuple.__iter__(key))  # type: ignore[arg-type]
    return any(kind is value_type for value_type in _torch_value_types())


def _torch_value_types() -> tuple[type, ...]:
    """torch's plain value types, if torch is imported (read from its globals, never imported here)."""
    torch = sys.modules.get("torch")
    namespace = types.ModuleType.__dict__["__dict__"].__get__(torch) if type(torch) is types.ModuleType else {}
    found = (namespace.get(name) for name in ("dtype", "device", "Size", "layout", "memory_format"))
    return tuple(value for value in found if type(value) is type)


def qualified_name(container: str) -> str:
    """The container as a dotted name, without the annotations (``<lru_cache>``, ``<closure>``)."""
    return _ANNOTATION.sub("", container)


def short(value: object) -> str:
    """A key or value as shown in a path: literals as written, anything else by type and address."""
    kind = type(value)
    if any(kind is atom for atom in ATOMS):  # by identity: ``in`` would call a metaclass's ``__eq__``
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    if kind is tuple:
        items = [short(item) for item in tuple.__iter__(value)]  # type: ignore[arg-type]
        return "(" + ", ".join(items[:4] + (["..."] if len(items) > 4 else [])) + ("," if len(items) == 1 else "") + ")"
    if any(kind is value_type for value_type in _torch_value_types()):  # C types, by identity: their repr runs no user code
        text = repr(value)
        return f"torch.{text}" if text.startswith("device(") else text
    return f"<{type_name(value)} at {id(value):#x}>"


def step(parent: Any, child: object, namespace: bool) -> tuple[str, bool]:
    """The label of one edge, and whether ``child`` is a namespace (its entries read as ``.name``)."""
    cls = type(parent)
    if inherits(cls, (dict,)):
        index = _first(map(or_, map(is_, dict.values(parent), repeat(child)), map(is_, dict.keys(parent), repeat(child))))
        if index is not None:
            key, value = next(islice(dict.items(parent), index, None))
            return (f".{key}" if namespace and type(key) is str and value is child else f"[{short(key)}]"), False
    elif inherits(cls, (list, tuple)):
        items = list.__iter__(parent) if inherits(cls, (list,)) else tuple.__iter__(parent)
        index = _first(map(is_, items, repeat(child)))
        if index is not None:
            return f"[{index}]", False
    elif inherits(cls, (set, frozenset)):
        return f"{{{short(child)}}}", False
    elif cls is _LRU_WRAPPER:
        return " <lru_cache>", False
    elif cls is types.FunctionType:
        for name, label in _FUNCTION.items():
            if types.FunctionType.__dict__[name].__get__(parent) is child:
                return label, name == "__dict__"
    elif cls is types.CellType:
        return "", False
    elif cls is types.MethodType:
        return (".__self__" if types.MethodType.__self__.__get__(parent) is child else ".__func__"), False
    else:
        label = attribute(parent, child)
        if label is not None:
            return label
    return f" -> <{type_name(child)}>", False


def _first(flags: Iterator[bool]) -> Optional[int]:
    """The index of the first true flag (C iterators: a list or dict of a million is searched in milliseconds)."""
    return next(compress(count(), flags), None)


def attribute(parent: object, child: object) -> Optional[tuple[str, bool]]:
    """``child`` as an attribute of an instance: its ``__dict__``, a value in it, or a slot."""
    return next(attributes(parent, child), None)


def attributes(parent: object, child: object) -> Iterator[tuple[str, bool]]:
    """Every way ``child`` is an attribute of an instance: its ``__dict__``, each name in it, each slot."""
    descriptor = class_lookup(type(parent), "__dict__")
    if type(descriptor) is types.GetSetDescriptorType:
        namespace = descriptor.__get__(parent)
        if namespace is child:
            yield "", True
        if type(namespace) is dict:
            for key, value in dict.items(namespace):
                if value is child and type(key) is str:
                    yield f".{key}", False
    for base in mro(type(parent)):
        for name, slot in dict.items(class_dict(base)):
            if type(slot) is types.MemberDescriptorType:
                try:
                    if slot.__get__(parent) is child:
                        yield f".{name}", False
                except AttributeError:  # an empty slot
                    continue


def every_name(chain: list[object], root: str) -> list[Described]:
    """``describe``, or for a path without an item (a global, an attribute: each name is its own holder) one
    path per name under which the last parent holds the object (``A = B = model``: ``mod.A`` and ``mod.B``)."""
    described = describe(chain, root)
    if described.container != described.path or len(chain) < 2:
        return [described]
    parts, namespace = [root], True
    for parent, child in zip(chain[:-2], chain[1:-1]):
        label, namespace = step(parent, child, namespace)
        parts.append(label)
    prefix, parent, child = "".join(parts), chain[-2], chain[-1]
    if inherits(type(parent), (dict,)):
        keys = compress(dict.keys(parent), map(is_, dict.values(parent), repeat(child))) if namespace else ()
        names = [f".{key}" for key in keys if type(key) is str]
    else:
        names = [label for label, _ in attributes(parent, child) if label]
    if len(names) < 2:
        return [described]
    return [Described(prefix + name, prefix + name, described.at, False) for name in names]
