"""Configuration shared by the flake8 plugin, the standalone hook and the codemod.

flake8 reads ``weakglobals-extra-types`` from its own config files; the hook and the codemod read the same
settings from ``[tool.weakglobals]`` in ``pyproject.toml``. Command-line flags override both.
"""
from __future__ import annotations

import re
from typing import Iterable

_QUALIFIED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")


class ConfigError(ValueError):
    """A configuration value that cannot be used; the message names where it came from."""


def parse_extra_types(values: Iterable[str], where: str) -> frozenset[str]:
    """Validate qualified class names such as ``mylib.graph.Node``."""
    names = [value.strip() for value in values if value.strip()]
    for name in names:
        if not _QUALIFIED.fullmatch(name):
            raise ConfigError(f"{where}: {name!r} is not a qualified class name such as 'mylib.graph.Node'")
    return frozenset(names)
