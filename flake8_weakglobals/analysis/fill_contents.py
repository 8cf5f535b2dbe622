"""What one fill puts in a container, once evidence is known: shared by the judges and the fix's safety check."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .evidence import Obj, Seq, Tup, Value
from .recorded_uses import Fill


@dataclass(frozen=True)
class Held:
    """What one fill puts in a container, once evidence is known."""

    fill: Fill
    value: Value  # the key, for a map; the element, for a set or a list
    stored: Value = None  # a map's value for that key

    @property
    def stored_object(self) -> Optional[Obj]:
        """A framework object stored as a map's value, alone or inside a tuple."""
        return self.stored if isinstance(self.stored, Obj) else object_in_tuple(self.stored)

    @property
    def object(self) -> Optional[Obj]:
        return self.value if isinstance(self.value, Obj) else None

    @property
    def in_tuple(self) -> Optional[Obj]:
        """A framework object inside a tuple key: pinned, and a tuple cannot be weakly referenced."""
        return object_in_tuple(self.value)


def object_in_tuple(value: Value) -> Optional[Obj]:
    """A framework object inside a tuple (or a list: ``save([loss, scores])``), at any depth."""
    pending = list(value.items) if isinstance(value, Tup) else [value.element] if isinstance(value, Seq) else []
    while pending:
        item = pending.pop()
        if isinstance(item, Tup):
            pending.extend(item.items)
        elif isinstance(item, Seq):
            pending.append(item.element)
        elif isinstance(item, Obj):
            return item
    return None
