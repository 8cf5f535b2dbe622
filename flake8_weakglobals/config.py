"""Configuration shared by the flake8 plugin, the standalone hook and the codemod.

flake8 reads ``weakglobals-extra-types`` from its own config files (and ``--select``, ``--extend-ignore``,
``--exclude`` as usual). The hook and the codemod read the same settings from ``[tool.weakglobals]`` in the
nearest ``pyproject.toml``: ``extra-types``, ``select``, ``ignore``, ``exclude`` (and the codemod's
``runtime``). Command-line flags override the file. Bad values name the file and the key.
"""
from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Optional

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

from .rules import DEFAULT_IGNORED, RULES

_QUALIFIED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_CODE_PREFIX = re.compile(r"WG\d{0,3}")
RUNTIME_MODES = ("vendor", "import")


class ConfigError(ValueError):
    """A configuration value that cannot be used; the message names where it came from."""


def parse_extra_types(values: Iterable[str], where: str) -> frozenset[str]:
    """Validate qualified class names such as ``mylib.graph.Node``."""
    names = [value.strip() for value in values if value.strip()]
    for name in names:
        if not _QUALIFIED.fullmatch(name):
            raise ConfigError(f"{where}: {name!r} is not a qualified class name such as 'mylib.graph.Node'")
    return frozenset(names)


def parse_codes(values: Iterable[str], where: str) -> frozenset[str]:
    """Validate code prefixes: ``WG001``, ``WG00``, ``WG``."""
    codes = [value.strip().upper() for value in values if value.strip()]
    for code in codes:
        if not _CODE_PREFIX.fullmatch(code) or not any(rule.startswith(code) for rule in RULES):
            raise ConfigError(f"{where}: {code!r} is not a WG code or prefix (known: {', '.join(RULES)})")
    return frozenset(codes)


@dataclass(frozen=True)
class Settings:
    extra_types: frozenset[str] = frozenset()
    select: frozenset[str] = frozenset()  # empty: every code
    ignore: frozenset[str] = frozenset()
    exclude: tuple[str, ...] = ()
    runtime: str = "vendor"
    source: Optional[Path] = field(default=None, compare=False)  # the pyproject.toml they came from

    def wants(self, code: str) -> bool:
        """As flake8 decides: an opt-in code (``WG007``) only when a selected prefix names it (``WG``, ``WG007``)."""
        if code in DEFAULT_IGNORED and not any(code.startswith(prefix) for prefix in self.select):
            return False
        selected = not self.select or code.startswith(tuple(self.select))
        return selected and not code.startswith(tuple(self.ignore))

    def override(self, **values: Any) -> Settings:
        """Command-line values (those given, not None) win over the file's."""
        return replace(self, **{key: value for key, value in values.items() if value is not None})


def find_pyproject(start: Path) -> Optional[Path]:
    for directory in (start.resolve(), *start.resolve().parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_settings(start: Path) -> Settings:
    """``[tool.weakglobals]`` of the nearest ``pyproject.toml`` at or above ``start``; defaults if none."""
    path = find_pyproject(start)
    if path is None:
        return Settings()
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {}).get("weakglobals", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.weakglobals] must be a table")
    return settings_from_table(table, path)


def settings_from_table(table: dict[str, Any], path: Path) -> Settings:
    known = {"extra-types", "select", "ignore", "exclude", "runtime"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(f"{path}: [tool.weakglobals] has unknown key {unknown[0]!r} (known: {', '.join(sorted(known))})")

    def strings(key: str) -> list[str]:
        value = table.get(key, [])
        if isinstance(value, str) or not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ConfigError(f"{path}: [tool.weakglobals] {key} must be a list of strings")
        return value

    runtime = table.get("runtime", "vendor")
    if runtime not in RUNTIME_MODES:
        raise ConfigError(f"{path}: [tool.weakglobals] runtime must be one of {', '.join(RUNTIME_MODES)}, not {runtime!r}")
    where = f"{path}: [tool.weakglobals]"
    return Settings(
        extra_types=parse_extra_types(strings("extra-types"), f"{where} extra-types"),
        select=parse_codes(strings("select"), f"{where} select"),
        ignore=parse_codes(strings("ignore"), f"{where} ignore"),
        exclude=tuple(strings("exclude")),
        runtime=runtime,
        source=path,
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags the hook and the codemod share; each overrides its ``[tool.weakglobals]`` key."""
    parser.add_argument("paths", nargs="*", type=Path, help="files and directories (recursive)")
    parser.add_argument("--select", help="comma-separated WG codes or prefixes (default: all)")
    parser.add_argument("--ignore", help="comma-separated WG codes or prefixes to skip")
    parser.add_argument("--exclude", action="append", metavar="GLOB", help="skip matching files and directories")
    parser.add_argument("--extra-types", help="comma-separated qualified class names that count as framework objects")


def _split(value: Optional[str]) -> list[str]:
    return [part for part in (value or "").replace(" ", ",").split(",") if part]


def settings_for(arguments: argparse.Namespace, start: Path) -> Settings:
    """``[tool.weakglobals]`` of the nearest pyproject.toml, overridden by the flags given."""
    settings = load_settings(start)
    return settings.override(
        select=parse_codes(_split(arguments.select), "--select") if arguments.select else None,
        ignore=parse_codes(_split(arguments.ignore), "--ignore") if arguments.ignore else None,
        extra_types=parse_extra_types(_split(arguments.extra_types), "--extra-types") if arguments.extra_types else None,
        exclude=(*settings.exclude, *arguments.exclude) if arguments.exclude else None,
        runtime=getattr(arguments, "runtime", None),
    )


def command_settings(arguments: argparse.Namespace) -> Settings:
    """Settings for a command-line run, or exit 2 with the problem on stderr: a missing path, a bad value."""
    missing = [path for path in arguments.paths if not path.exists()]
    if missing:
        print(f"{missing[0]}: no such file or directory", file=sys.stderr)
        raise SystemExit(2)
    try:
        return settings_for(arguments, Path.cwd())
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
