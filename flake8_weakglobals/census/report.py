"""What a census found, and how it reads: pins grouped by the container that holds them, sorted by bytes,
each container with the static finding it confirms, or the plain statement that it is a map keyed by names
(which the linter leaves alone by design), or that the linter misses it. An object several containers hold
has a pin in each, and each of them names the others ("also held by"): fixing one container frees nothing
while another still holds it. It is counted once in the totals.

Pins are plain data (strings and numbers, no reference to any object), so a report keeps nothing alive
and crosses process boundaries (pytest-xdist workers) as JSON.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, Optional

ISSUES = "https://github.com/flake8-weakglobals/flake8-weakglobals/issues"
BY_NAME = "keyed by name: WG008 reports such a map only where it can show the values are modules or tensors"
SHOWN = 3  # pins listed per container; the rest are summed up
CONSTANT_CACHE = ("intended: a cache of constant tensors under keys of plain values (dtypes, devices, numbers), "
                  "bounded by those keys; the first test to fill it is named, whichever that is")
ACCEPTED = "intended: accepted in [tool.weakglobals] census-accept"
COMPILED = ("intended: a graph torch.compile installed as a global of the compiled function's module, torch's "
            "own; `torch._dynamo.reset()` frees it")


@dataclass(frozen=True)
class Confirmation:
    """The static finding a pin confirms: the linter's code and where it reports it."""

    code: str
    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.code} at {self.file}:{self.line}"


@dataclass(frozen=True)
class Pin:
    """One object a test created that long-lived state still holds after the test."""

    path: str  # deepspeed.utils.debug.module_names[<Linear at 0x7f…>]
    container: str  # deepspeed.utils.debug.module_names (a path's part before its first item)
    root: str  # the container as a dotted name, what ``@pytest.mark.weakglobals(expect=...)`` names
    kind: str  # the pinned object's type name
    test: Optional[str]  # the test that created it
    storages: dict[str, int]  # each tensor storage it keeps alive -> bytes
    confirms: Optional[Confirmation]  # None: not reported by the linter
    note: str = ""
    expected: bool = False  # named by the test's marker
    by_name: bool = False  # held under a string key of its container (``REGISTRY['bert']``)
    identity: str = ""  # "pid:address" of the object: the pins of one object in several containers share it
    intended: str = ""  # why it is held on purpose (CONSTANT_CACHE, ACCEPTED): never a failure, never a miss

    @property
    def nbytes(self) -> int:
        return sum(self.storages.values())

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Pin:
        confirms = data.get("confirms")
        return cls(**{**data, "confirms": Confirmation(**confirms) if confirms else None})

    def expecting(self) -> Pin:
        return replace(self, expected=True)


@dataclass
class Container:
    name: str
    pins: list[Pin]

    @property
    def storages(self) -> dict[str, int]:
        return _union(self.pins)

    @property
    def nbytes(self) -> int:
        return sum(self.storages.values())

    @property
    def confirms(self) -> Optional[Confirmation]:
        return self.pins[0].confirms

    @property
    def by_name(self) -> bool:
        """A map keyed by names (every pin under a string key): the key rules leave these alone on purpose, and
        WG008 needs evidence that the values are framework objects, so such a container is no miss to report."""
        return all(pin.by_name for pin in self.pins)

    @property
    def intended(self) -> str:
        """Why every pin of the container is held on purpose, or "" (the first pin's reason)."""
        return self.pins[0].intended if all(pin.intended for pin in self.pins) else ""

    @property
    def verdict(self) -> str:
        if self.intended:
            return self.intended
        if self.confirms:
            return f"confirms {self.confirms}"
        if self.by_name:
            return BY_NAME
        return "not reported by the linter"


@dataclass
class Report:
    """The pins of one census (``with census(...) as report``) or of a whole test session."""

    packages: tuple[str, ...] = ()
    pins: list[Pin] = field(default_factory=list)
    not_censused: list[str] = field(default_factory=list)  # what pytest could not collect (node ids): never run, never walked

    def containers(self) -> list[Container]:
        """Grouped by container, the container holding the most bytes first (then the most objects)."""
        groups: dict[str, list[Pin]] = {}
        for pin in self.pins:
            groups.setdefault(pin.container, []).append(pin)
        containers = [Container(name, sorted(pins, key=lambda pin: (-pin.nbytes, pin.path))) for name, pins in groups.items()]
        return sorted(containers, key=lambda container: (-container.nbytes, -len(container.pins), container.name))

    @property
    def nbytes(self) -> int:
        return sum(_union(self.pins).values())

    def lines(self) -> list[str]:
        """The report as a user reads it at the end of a session (or in a failing test)."""
        packages = ", ".join(self.packages) or "no package"
        if not self.pins:
            if self.not_censused:  # not a clean bill: what failed to collect never ran
                return [f"weakglobals census of {packages}: no pins in the tests it censused", self._not_censused()]
            return [f"weakglobals census of {packages}: no pins (nothing a test created is held by their long-lived state)"]
        containers = self.containers()
        tests = {pin.test for pin in self.pins}
        holders: dict[tuple[Optional[str], str], list[str]] = {}  # each object (of its test) -> the containers holding it
        for pin in self.pins:
            holders.setdefault(_object(pin), []).append(pin.container)
        lines = [
            f"weakglobals census of {packages}: {_count(len(containers), 'container')} "
            f"{'holds' if len(containers) == 1 else 'hold'} "
            f"{_count(len(holders), 'object')} created by {_count(len(tests), 'test')}, "
            f"{size(self.nbytes)} of tensor storage in all (each storage counted once)",
        ]
        if self.not_censused:
            lines.append(self._not_censused())
        for container in containers:
            lines.append(f"{size(container.nbytes):>10}  {container.name}: {_count(len(container.pins), 'object')}; {container.verdict}")
            for pin in container.pins[:SHOWN]:
                others = [name for name in dict.fromkeys(holders[_object(pin)]) if name != pin.container]
                also = ", ".join(others[:SHOWN]) + (f" and {len(others) - SHOWN} more" if len(others) > SHOWN else "")
                extra = "".join(f"; {text}" for text in (
                    f"also held by {also}" if others else "", pin.note, "expected by its marker" if pin.expected else "",
                ) if text)
                lines.append(f"{'':>10}  {size(pin.nbytes):>10}  {pin.path}  ({pin.kind}, {pin.test or 'this census'}{extra})")
            rest = container.pins[SHOWN:]
            if rest:
                lines.append(f"{'':>10}  {size(sum(_union(rest).values())):>10}  ... and {_count(len(rest), 'more object')}")
        missed = [container for container in containers if container.confirms is None and not container.by_name and not container.intended]
        if missed:
            lines.append(
                f"{_count(len(missed), 'container')} not reported by the linter: the most useful lines of this report, "
                f"each a pin the static rules miss; please report them ({ISSUES})."
            )
        return lines

    def _not_censused(self) -> str:
        """``census: 2 modules could not be collected; not censused: a.py, b.py``: a test file pytest could not
        import (or a class, a parametrisation) ran no test, so no census ran on what it would have done."""
        modules = sum("::" not in node for node in self.not_censused)
        tests = len(self.not_censused) - modules
        what = " and ".join(_count(number, noun) for number, noun in ((modules, "module"), (tests, "test")) if number)
        return f"census: {what} could not be collected; not censused: {', '.join(node or '.' for node in self.not_censused)}"


def _object(pin: Pin) -> tuple[Optional[str], str]:
    """Which object a pin is (of which test): one held by several containers has a pin in each."""
    return pin.test, pin.identity or pin.path


def _union(pins: list[Pin]) -> dict[str, int]:
    found: dict[str, int] = {}
    for pin in pins:
        found.update(pin.storages)
    return found


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def size(nbytes: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= scale:
            return f"{nbytes / scale:.1f} {unit}"
    return f"{nbytes} B"
