"""The flake8 plugin ``WG``: reports the analysis's findings at each container's definition."""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import Any, Iterator

from .. import __version__
from ..analysis.framework_types import Vocabulary, may_mention_framework
from ..index.project import context_for
from ..rules.analyze_module import analyze
from ..rules.codes import INTERNAL_ERROR
from .check_one_file import internal_error
from .config import ConfigError, parse_extra_types


class WeakGlobalsChecker:
    """A flake8 tree plugin over the shared analysis; files that mention no framework cost one regex search."""

    name = "flake8-weakglobals"
    version = __version__
    vocabulary = Vocabulary()

    def __init__(self, tree: ast.Module, lines: list[str], filename: str = "stdin") -> None:
        self.tree = tree
        self.lines = lines
        self.filename = filename

    @classmethod
    def add_options(cls, manager: Any) -> None:
        manager.add_option(
            "--weakglobals-extra-types",
            default=[],
            parse_from_config=True,
            comma_separated_list=True,
            help="Qualified class names whose instances count as framework objects too (e.g. mylib.graph.Node).",
        )
        manager.add_option(
            "--weakglobals-extra-module-bases",
            default=[],
            parse_from_config=True,
            comma_separated_list=True,
            help="Qualified class names whose subclasses are nn.Modules (e.g. mylib.layers.BaseLayer), beside the "
            "ecosystem's well-known bases the plugin ships.",
        )

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        try:
            extra = parse_extra_types(options.weakglobals_extra_types, "weakglobals-extra-types (flake8 configuration)")
            bases = parse_extra_types(options.weakglobals_extra_module_bases, "weakglobals-extra-module-bases (flake8 configuration)")
        except ConfigError as error:
            print(f"flake8-weakglobals: {error}", file=sys.stderr)
            raise SystemExit(2) from None
        cls.vocabulary = Vocabulary(extra, bases)

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        source = "".join(self.lines)
        if not may_mention_framework(source, self.vocabulary):
            return
        try:
            findings = analyze(self.tree, source, self.vocabulary, context_for(Path(self.filename)))
        except Exception as error:  # a bug of ours must not abort the user's whole flake8 run
            yield 1, 0, f"{INTERNAL_ERROR} {internal_error(error)}", type(self)
            return
        for finding in findings:
            yield finding.line, finding.col, finding.message, type(self)
