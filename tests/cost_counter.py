"""Count what one ``python -m fixes.apply --check --jobs 1 TREE`` run does, and print it as JSON.

    python tests/cost_counter.py TREE

Every walk of a tree goes through ``ast.walk`` or ``Scopes.index_parts``, every parse through
``ast.parse``, every summary through the index's ``summarize``, every scope index through ``Scopes``, and
every search of the project for the names a function goes by through ``outside._exported_as``, every
other module walked whole for its references through ``outside.references``:
each is wrapped to count, in a fresh interpreter so that no cache of an earlier run makes one look cheap.
Used by ``test_index_structure.py``: counts, unlike seconds, do not depend on the machine.
"""
from __future__ import annotations

import ast
import collections
import contextlib
import io
import json
import os
import sys
from typing import Any, Callable, Iterator

os.environ["WEAKGLOBALS_NO_CACHE"] = "1"  # every summary built in this run, none read from disk

from fixes import outside  # noqa: E402
from fixes.apply import main as apply_main  # noqa: E402
from flake8_weakglobals.index import project  # noqa: E402
from flake8_weakglobals.syntax import scopes  # noqa: E402

_WALK, _PARSE = ast.walk, ast.parse


def count(tree: str) -> dict[str, Any]:
    visits = [0]
    parses: collections.Counter[str] = collections.Counter()  # by the text parsed
    summaries: collections.Counter[str] = collections.Counter()
    indexed: collections.Counter[ast.Module] = collections.Counter()  # the trees kept: no address is reused
    index_parts, summarize, scopes_init = scopes.Scopes.index_parts, project.summarize, scopes.Scopes.__init__
    exported_as, name_lookups = outside._exported_as, [0]
    references, referenced = outside.references, collections.Counter()

    def walk(node: ast.AST) -> Iterator[ast.AST]:
        for found in _WALK(node):
            visits[0] += 1
            yield found

    def counted_index_parts(self: scopes.Scopes, root: ast.AST, wanted: Callable[[ast.AST], bool] | None = None) -> list[ast.AST]:
        found = index_parts(self, root, wanted)
        visits[0] += len(found)
        return found

    def parse(source: Any, *arguments: Any, **keywords: Any) -> Any:
        parses[source if isinstance(source, str) else repr(source)] += 1
        return _PARSE(source, *arguments, **keywords)

    def counted_summarize(tree: ast.Module, module: str, *rest: Any) -> Any:
        summaries[module] += 1
        return summarize(tree, module, *rest)

    def counted_scopes(self: scopes.Scopes, module: ast.Module) -> None:
        indexed[module] += 1
        scopes_init(self, module)

    def counted_exported_as(*arguments: Any) -> Any:
        name_lookups[0] += 1
        return exported_as(*arguments)

    def counted_references(path: Any, tree: ast.Module) -> Any:
        referenced[os.path.basename(path)] += 1
        return references(path, tree)

    ast.walk, ast.parse = walk, parse  # type: ignore[assignment]
    outside.references = counted_references  # type: ignore[assignment]
    outside._exported_as = counted_exported_as  # type: ignore[assignment]
    scopes.Scopes.index_parts, scopes.Scopes.__init__ = counted_index_parts, counted_scopes  # type: ignore[method-assign]
    project.summarize = counted_summarize  # type: ignore[assignment]
    with contextlib.redirect_stdout(io.StringIO()):
        status = apply_main(["--check", "--jobs", "1", tree])
    return {
        "status": status,
        "visits": visits[0],
        "parses": sum(parses.values()),
        "most_parses_of_one_text": max(parses.values(), default=0),
        "most_summaries_of_one_module": max(summaries.values(), default=0),
        "summaries": sum(summaries.values()),
        "most_indexes_of_one_tree": max(indexed.values(), default=0),
        "indexes": sum(indexed.values()),
        "name_lookups": name_lookups[0],  # the names a container or a filling function goes by, found in the project
        "walked_for_references": sorted(referenced),  # other modules' file names
    }


if __name__ == "__main__":
    print(json.dumps(count(sys.argv[1])))
