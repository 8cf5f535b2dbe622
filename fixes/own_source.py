"""Whether a module reads its own source text: then every rewrite changes what it reads.

A kernel module that names its build cache after a hash of ``inspect.getsource(sys.modules[__name__])``,
or a script that prints its own line count from ``open(__file__)``, behaves differently after any fix:
the fixed text is what it reads. The codemod leaves such a module as it is, whatever it would fix.
"""
from __future__ import annotations

import ast
import re
from typing import Optional

from flake8_weakglobals.syntax.qualified_names import Names

#: Calls that return the text of source code (of the objects they are given, or of a file by its name).
_SOURCE_READERS = frozenset({
    "inspect.getsource", "inspect.getsourcelines", "inspect.findsource", "inspect.getcomments",
    "linecache.getline", "linecache.getlines", "tokenize.open",
})
#: Calls that open a file: given ``__file__``, its own. Opened only to be locked (DeepSpeed's ``printflock``
#: takes ``fcntl.flock`` on its own file), it is not read.
_FILE_OPENERS = frozenset({"builtins.open", "io.open", "codecs.open", "pathlib.Path", "pathlib.PurePath"})
_LOCKS = frozenset({"fcntl.flock", "fcntl.lockf"})
_WORDS = re.compile(r"getsource|findsource|getcomments|linecache|tokenize|__file__")


def reads_its_own_source(tree: ast.Module, source: str, names: Names) -> Optional[str]:
    """Why the module may read its own text (the first place, as a reason), or None."""
    if _WORDS.search(source) is None:  # one search instead of a walk of the module
        return None
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        callee = names.qualify(node.func) or ""
        if callee in _SOURCE_READERS:
            return f"line {node.lineno} reads source text with `{ast.unparse(node)[:50]}`, and a rewrite changes the module's"
        if (
            callee in _FILE_OPENERS and any(isinstance(part, ast.Name) and part.id == "__file__" for part in ast.walk(node))
            and not _only_locked(node, parents, names)
        ):
            return f"line {node.lineno} opens its own file with `{ast.unparse(node)[:50]}`, and a rewrite changes what it reads"
    return None


def _only_locked(opened: ast.Call, parents: dict[ast.AST, ast.AST], names: Names) -> bool:
    """``with open(__file__) as fh: fcntl.flock(fh, ...)``: the file object goes to locks and nothing else."""
    item = parents.get(opened)
    if not (isinstance(item, ast.withitem) and isinstance(item.optional_vars, ast.Name)):
        return False
    statement = parents.get(item)
    handle = item.optional_vars.id
    uses = [node for body in getattr(statement, "body", []) for node in ast.walk(body) if isinstance(node, ast.Name) and node.id == handle]
    return all(isinstance(call := parents.get(use), ast.Call) and use in call.args and names.qualify(call.func) in _LOCKS for use in uses)
