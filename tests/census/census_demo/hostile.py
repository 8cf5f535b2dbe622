"""Objects whose every hook a careless walk would run: each one records the call, so a test can see that
the census ran none. They sit in a registry next to a real pin, as keys, values, elements and attributes."""
from __future__ import annotations

from typing import Any

CALLS: list[str] = []


class Meta(type):
    def __eq__(cls, other: object) -> bool:
        CALLS.append("Meta.__eq__")
        return False

    def __hash__(cls) -> int:
        CALLS.append("Meta.__hash__")
        return 0

    def __instancecheck__(cls, instance: object) -> bool:
        CALLS.append("Meta.__instancecheck__")
        return False

    def __subclasscheck__(cls, subclass: type) -> bool:
        CALLS.append("Meta.__subclasscheck__")
        return False


class Hostile(metaclass=Meta):
    def __init__(self, payload: Any = None) -> None:
        object.__setattr__(self, "payload", payload)

    def __getattribute__(self, name: str) -> Any:
        if name != "__class__":
            CALLS.append(f"__getattribute__({name})")
        return object.__getattribute__(self, name)

    def __getattr__(self, name: str) -> Any:
        CALLS.append(f"__getattr__({name})")
        raise AttributeError(name)

    @property
    def __class__(self) -> type:  # type: ignore[override]
        CALLS.append("__class__")
        return Hostile

    def __eq__(self, other: object) -> bool:
        CALLS.append("__eq__")
        return False

    def __hash__(self) -> int:
        CALLS.append("__hash__")
        return 1

    def __iter__(self) -> Any:
        CALLS.append("__iter__")
        return iter(())

    def __len__(self) -> int:
        CALLS.append("__len__")
        return 0

    def __repr__(self) -> str:
        CALLS.append("__repr__")
        return "Hostile()"

    @property
    def lazy(self) -> int:
        CALLS.append("lazy")
        return 0


class HostileDict(dict):
    def __iter__(self) -> Any:
        CALLS.append("HostileDict.__iter__")
        return iter(())

    def items(self) -> Any:
        CALLS.append("HostileDict.items")
        return iter(())

    def __getitem__(self, key: object) -> Any:
        CALLS.append("HostileDict.__getitem__")
        raise KeyError(key)


class HostileList(list):
    def __iter__(self) -> Any:
        CALLS.append("HostileList.__iter__")
        return iter(())


registry = HostileDict()
