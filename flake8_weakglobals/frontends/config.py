"""Configuration shared by the flake8 plugin, the standalone hook and the codemod.

flake8 reads ``weakglobals-extra-types`` from its own config files (and ``--select``, ``--extend-ignore``,
``--exclude`` as usual). The hook and the codemod read the same settings from ``[tool.weakglobals]``:
``extra-types``, ``select``, ``ignore``, ``exclude``, ``extend-exclude`` (and the codemod's ``runtime``).
The file is found as black and ruff find theirs: the nearest ``pyproject.toml`` with that table, searching
up from the common parent of the paths given; ``--config FILE`` names one, ``--isolated`` reads none.
Command-line flags override the file. Anything a TOML document can hold in the wrong place is one line
that names the file and the key (exit 2), never a traceback.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

from ..analysis.framework_types import Vocabulary
from ..rules.codes import RULES
from ..source.python_files import Excludes, exclude_patterns

_QUALIFIED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_CODE_PREFIX = re.compile(r"WG\d{0,3}")
RUNTIME_MODES = ("inline", "vendor", "import")


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
    extra_module_bases: frozenset[str] = frozenset()  # classes whose subclasses and instances are nn.Modules
    select: frozenset[str] = frozenset()  # empty: every default code
    extend_select: frozenset[str] = frozenset()  # added to ``select`` (or to the defaults)
    ignore: frozenset[str] = frozenset()
    exclude: Excludes = Excludes()
    runtime: str = "inline"
    #: The codemod also makes the fixes it cannot prove keep the program's behaviour (``UNSAFE_FIX_CODES``),
    #: as ruff's ``--unsafe-fixes`` does; off unless asked for.
    unsafe_fixes: bool = False
    #: ``pytest --weakglobals`` only: containers (dotted names) known to hold what tests create, on purpose,
    #: for the whole session: their pins are reported as accepted and never fail a test.
    census_accept: frozenset[str] = frozenset()
    source: Optional[Path] = field(default=None, compare=False)  # the file they came from

    def wants(self, code: str) -> bool:
        """As flake8 decides: selected by a prefix in ``select`` or ``extend-select``, and no ``ignore`` prefix."""
        selected = not self.select or code.startswith(tuple(self.select | self.extend_select))
        return selected and not code.startswith(tuple(self.ignore))

    @property
    def vocabulary(self) -> Vocabulary:
        return Vocabulary(self.extra_types, self.extra_module_bases)

    def override(self, **values: Any) -> Settings:
        """Command-line values (those given, not None) win over the file's."""
        return replace(self, **{key: value for key, value in values.items() if value is not None})


_LISTS = ("extra-types", "extra-module-bases", "select", "extend-select", "ignore", "exclude", "extend-exclude",
          "census-accept")
KEYS = (*_LISTS, "runtime", "unsafe-fixes")


def toml_type(value: object) -> str:
    """A value's type in TOML's words, for messages about a document the user wrote in TOML."""
    kinds = ((bool, "a boolean"), (int, "an integer"), (float, "a float"), (str, "a string"), (list, "an array"),
             (dict, "a table"), (datetime.datetime, "a date-time"), (datetime.date, "a date"), (datetime.time, "a time"))
    return next((name for kind, name in kinds if isinstance(value, kind)), type(value).__name__)


def read_table(path: Path) -> Optional[dict[str, Any]]:
    """``[tool.weakglobals]`` of a TOML file; None when it has none. A file that cannot be read or parsed,
    or a ``tool`` or ``tool.weakglobals`` that is not a table, is a ConfigError."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise ConfigError(f"{path}: cannot read: {reason}") from None
    tool = document.get("tool")
    if tool is None:
        return None
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: `tool` must be a table ([tool]), not {toml_type(tool)}")
    table = tool.get("weakglobals")
    if table is None or isinstance(table, dict):
        return table
    hint = " of tables ([[tool.weakglobals]]); write [tool.weakglobals]" if isinstance(table, list) and table and all(isinstance(item, dict) for item in table) else ""
    raise ConfigError(f"{path}: [tool.weakglobals] must be a table, not {toml_type(table)}{hint}")


def find_config(paths: Sequence[Path]) -> Optional[tuple[Path, dict[str, Any]]]:
    """The nearest ``pyproject.toml`` with a ``[tool.weakglobals]`` table, searching up from the common
    parent of ``paths`` (the working directory when there are none), as black and ruff search."""
    absolute = [os.path.abspath(path) for path in paths] or [os.getcwd()]
    start = Path(os.path.commonpath(absolute))
    if not start.is_dir():
        start = start.parent
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            table = read_table(candidate)
            if table is not None:
                return candidate, table
    return None


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string, so that a suggested line is one line and means what it shows: a
    JSON string is one, once DEL (which TOML forbids raw and JSON leaves as it is) is escaped too."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def settings_from_table(table: dict[str, Any], path: Path) -> Settings:
    """Settings from a ``[tool.weakglobals]`` table; exclude patterns are relative to ``path``'s directory."""
    where = f"{path}: [tool.weakglobals]"
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise ConfigError(f"{where} has unknown key {unknown[0]!r} (known: {', '.join(sorted(KEYS))})")

    def strings(key: str) -> list[str]:
        value = table.get(key, [])
        if not isinstance(value, list):
            example = f" (write {key} = [{toml_string(value)}])" if isinstance(value, str) else ""
            raise ConfigError(f"{where} {key} must be an array of strings, not {toml_type(value)}{example}")
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise ConfigError(f"{where} {key} must be an array of strings; item {index + 1} is {toml_type(item)}")
        return value

    runtime = table.get("runtime", "inline")
    if runtime not in RUNTIME_MODES or not isinstance(runtime, str):
        shown = repr(runtime) if isinstance(runtime, str) else toml_type(runtime)
        raise ConfigError(f"{where} runtime must be one of {', '.join(map(repr, RUNTIME_MODES))}, not {shown}")
    unsafe_fixes = table.get("unsafe-fixes", False)
    if not isinstance(unsafe_fixes, bool):
        raise ConfigError(f"{where} unsafe-fixes must be true or false, not {toml_type(unsafe_fixes)}")
    base = path.absolute().parent
    exclude = exclude_patterns(strings("exclude"), base) if "exclude" in table else None
    if "select" in table and not strings("select"):
        raise ConfigError(f"{where} select is empty, which would select no code: remove it for the default codes")
    return Settings(
        extra_types=parse_extra_types(strings("extra-types"), f"{where} extra-types"),
        extra_module_bases=parse_extra_types(strings("extra-module-bases"), f"{where} extra-module-bases"),
        select=parse_codes(strings("select"), f"{where} select"),
        extend_select=parse_codes(strings("extend-select"), f"{where} extend-select"),
        ignore=parse_codes(strings("ignore"), f"{where} ignore"),
        exclude=Excludes(exclude, exclude_patterns(strings("extend-exclude"), base)),
        runtime=runtime,
        unsafe_fixes=unsafe_fixes,
        census_accept=parse_dotted_names(strings("census-accept"), f"{where} census-accept"),
        source=path,
    )


def parse_dotted_names(names: list[str], where: str) -> frozenset[str]:
    """Containers named as the census names them (``pkg.module.CACHE``, ``pkg.module.Class.attribute``)."""
    for name in names:
        if not _DOTTED.fullmatch(name):
            raise ConfigError(f"{where}: {name!r} is not a dotted name such as 'mypkg.module.CACHE'")
    return frozenset(names)


_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags the hook and the codemod share; each overrides its ``[tool.weakglobals]`` key."""
    parser.add_argument("paths", nargs="*", type=Path, help="files and directories (recursive; default: .)")
    parser.add_argument("--select", help="comma-separated WG codes or prefixes (default: every code)")
    parser.add_argument("--extend-select", help="comma-separated WG codes or prefixes added to the selection")
    parser.add_argument("--ignore", help="comma-separated WG codes or prefixes to skip")
    parser.add_argument("--exclude", action="append", metavar="PATTERNS",
                        help="comma-separated globs of files and directories to skip, replacing the configured "
                        "ones and the default list (.git, build, dist, ...); relative to the working directory")
    parser.add_argument("--extend-exclude", action="append", metavar="PATTERNS",
                        help="like --exclude, but added to the configured and default patterns")
    parser.add_argument("--extra-types", help="comma-separated qualified class names that count as framework objects")
    parser.add_argument("--extra-module-bases", help="comma-separated qualified class names whose subclasses are nn.Modules "
                        "(an ecosystem's base classes the shipped table does not know)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--config", type=Path, metavar="FILE",
                       help="read [tool.weakglobals] from FILE instead of the nearest pyproject.toml that has it")
    where.add_argument("--isolated", action="store_true", help="read no configuration file")


def _split(value: Optional[str]) -> list[str]:
    return [part for part in (value or "").replace(" ", ",").split(",") if part]


def settings_for(arguments: argparse.Namespace) -> Settings:
    """The configuration file's settings (``--config``, ``--isolated`` or found from the paths), overridden by
    the flags given. Command-line patterns are relative to the working directory."""
    if arguments.isolated:
        settings = Settings()
    else:
        if arguments.config is not None:
            found: Optional[tuple[Path, dict[str, Any]]] = (arguments.config, read_table(arguments.config) or {})
        else:
            found = find_config(arguments.paths)
        settings = settings_from_table(found[1], found[0]) if found else Settings()
    here = Path.cwd()
    exclude = settings.exclude
    if arguments.exclude:
        exclude = replace(exclude, exclude=exclude_patterns(_split(",".join(arguments.exclude)), here))
    if arguments.extend_exclude:
        exclude = replace(exclude, extend=exclude.extend + exclude_patterns(_split(",".join(arguments.extend_exclude)), here))
    return settings.override(
        select=parse_codes(_split(arguments.select), "--select") if arguments.select else None,
        extend_select=parse_codes(_split(arguments.extend_select), "--extend-select") if arguments.extend_select else None,
        ignore=parse_codes(_split(arguments.ignore), "--ignore") if arguments.ignore else None,
        extra_types=parse_extra_types(_split(arguments.extra_types), "--extra-types") if arguments.extra_types else None,
        extra_module_bases=parse_extra_types(_split(arguments.extra_module_bases), "--extra-module-bases")
        if arguments.extra_module_bases else None,
        exclude=exclude,
        runtime=getattr(arguments, "runtime", None),
        unsafe_fixes=True if getattr(arguments, "unsafe_fixes", False) else None,
    )


def default_paths(paths: list[Path]) -> list[Path]:
    """No paths means ``.``, as for flake8 and ruff. Under pre-commit (which sets ``PRE_COMMIT=1`` for its
    hooks) no paths means an empty list of files: pre-commit skips a hook with no matching files, unless the
    hook says ``always_run: true``, and then it runs it with none; that is a clean no-op."""
    if paths or os.environ.get("PRE_COMMIT") == "1":
        return paths
    return [Path(".")]


def command_settings(arguments: argparse.Namespace) -> Settings:
    """Settings for a command-line run, or exit 2 with the problem on stderr: a missing path, a bad value.
    Fills in ``arguments.paths`` (``default_paths``) first: the configuration is found from them."""
    arguments.paths = default_paths(arguments.paths)
    missing = [path for path in (*arguments.paths, arguments.config) if path is not None and not path.exists()]
    if missing:
        print(f"{missing[0]}: no such file or directory", file=sys.stderr)
        raise SystemExit(2)
    try:
        return settings_for(arguments)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None


def entry_point(module: str, script: str) -> str:
    """The program name for ``--help`` and usage: ``python -m MODULE`` when run that way, else the console
    script's name."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    return f"python -m {module}" if spec is not None and spec.name == module else script
