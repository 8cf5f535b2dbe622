"""A hypothesis grammar of the programs the rules are about: module- and class-level containers, and the
functions, methods, loops, hooks and caches that fill, read, rebind and pass them, with the evidence the
analysis looks for (annotations through aliases, iteration methods, ``self`` in modules) mixed with
everything that must stop a fix (escapes, operators, ``id()`` keys, noqa, shadowing).

Every program it draws is valid Python; ``test_generated_programs.py`` checks that too.
"""
from __future__ import annotations

from hypothesis import strategies as st

CONTAINERS = ("registry", "seen", "cache", "names", "pool")

IMPORTS = (
    "import torch",
    "import torch.nn as nn",
    "from torch import nn",
    "from torch import Tensor",
    "from torch.nn import Module, Parameter",
    "import weakref",
    "import functools",
    "from functools import lru_cache",
    "import collections",
    "from collections import OrderedDict, defaultdict, deque",
    "from typing import Dict, List, Optional, Set",
    "from typing import TYPE_CHECKING",
)

INITIALIZERS = (
    "{}",
    "dict()",
    "set()",
    "[]",
    "None",
    "defaultdict(list)",
    "collections.defaultdict(int)",
    "OrderedDict()",
    "deque()",
    "weakref.WeakKeyDictionary()",
    "weakref.WeakSet()",
    "weakref.WeakValueDictionary()",
    "{'a': 1}",
    "dict.fromkeys(nn.Linear(2, 2).parameters(), 0)",
    "{m: n for n, m in nn.Linear(2, 2).named_modules()}",
    "{p for p in nn.Linear(2, 2).parameters()}",
)

ANNOTATIONS = (
    "",
    ": Dict[nn.Module, str]",
    ": Dict[torch.Tensor, int]",
    ": Set[nn.Parameter]",
    ": 'dict[Tensor, str]'",
    ": dict",
    ": Optional[dict]",
    ": List[nn.Module]",
    ": 'weakref.WeakKeyDictionary[Tensor, int]'",
)

PARAMETER_TYPES = ("", ": nn.Module", ": torch.Tensor", ": nn.Parameter", ": 'Tensor'", ": Module", ": int", ": str", ": Optional[Tensor]")

KEYS = ("key", "module", "p", "id(key)", "id(p)", "key.weight", "name", "'literal'", "(key, name)", "self")

COMMENTS = ("", "  # a comment", "  # noqa: WG001", "  # noqa", "  # noqa: WG002,WG003", "  # noqa:E501")


#: Statements that use a container ``{c}`` with a key ``{k}`` and a value ``{v}`` (lines split on "\n",
#: indented by the caller): fills, reads, removals, rebinding, escapes and operators that stop a fix.
USES = (
    "{c}[{k}] = {v}",
    "{c}.setdefault({k}, {v})",
    "{c}.add({k})",
    "{c}.append({k})",
    "{c}.discard({k})",
    "{c}.update({{{k}: {v}}})",
    "{c}[{k}] += 1",
    "del {c}[{k}]",
    "{c}.pop({k}, None)",
    "{c}.clear()",
    "result = {c}.get({k})",
    "if {k} in {c}:\n    return True",
    "for item in {c}:\n    print(item)",
    "for item, value in {c}.items():\n    print(item, value)",
    "for n, m in key.named_modules():\n    {c}[m] = n",
    "for n, q in key.named_parameters():\n    {c}.setdefault(q, n)",
    "for q in key.parameters():\n    {c}.add(q)",
    "total = len({c})",
    "other = {c}",
    "print({c})",
    "{c} |= {{{k}: 1}}",
    "merged = {c} | {{}}",
    "if (found := {c}.get({k})) is not None:\n    return found",
    "callback = lambda: {c}.clear()",
    "def inner(x: nn.Module):\n    {c}[x] = 1",
    "{c} = {{}}",
    "with lock:\n    {c}[{k}] = 2",
    "try:\n    value = {c}[{k}]\nexcept KeyError:\n    value = None",
    "match key:\n    case {{'k': v}}:\n        {c}[v] = 1\n    case _:\n        pass",
    "return {{x: y for x, y in {c}.items()}}",
    # id()-keyed caches, the WG005 shape, in several spellings
    "{c}[id(p)] = p",
    "if id(key) in {c}:\n    return {c}[id(key)]\n{c}[id(key)] = key",
    "return {c}.setdefault(id(key), len({c}))",
)
VALUES = ("1", "name", "key", "[]", "None", "len(name)")


@st.composite
def function(draw: st.DrawFn, containers: tuple[str, ...], method: bool = False) -> list[str]:
    name = draw(st.sampled_from(("fill", "lookup", "register", "extract", "forget", "hook")))
    parameters = ["self"] if method else []
    parameters += [f"key{draw(st.sampled_from(PARAMETER_TYPES))}", f"p{draw(st.sampled_from(PARAMETER_TYPES))}", "name: str = ''"]
    decorator = draw(st.sampled_from(("", "@functools.lru_cache(maxsize=None)", "@lru_cache", "@functools.cache", "@staticmethod" if method else "")))
    if decorator == "@staticmethod":
        parameters = parameters[1:]
    used = draw(st.lists(st.sampled_from(containers), min_size=1, max_size=3))
    body: list[str] = []
    rebound = sorted({container for container in used if draw(st.booleans())})
    if rebound and not method:
        body.append(f"global {', '.join(rebound)}")
    for container in used:
        target = f"self.{container}" if method and draw(st.booleans()) else container
        use = draw(st.sampled_from(USES)).format(c=target, k=draw(st.sampled_from(KEYS)), v=draw(st.sampled_from(VALUES)))
        body += use.split("\n")
    body.append(draw(st.sampled_from(("pass", "return None", f"return {used[0]}"))))
    header = [decorator] if decorator else []
    return [*header, f"def {name}_{draw(st.integers(0, 9))}({', '.join(parameters)}):", *(f"    {line}" for line in body)]


@st.composite
def definition(draw: st.DrawFn, container: str) -> list[str]:
    annotation = draw(st.sampled_from(ANNOTATIONS))
    initial = draw(st.sampled_from(INITIALIZERS))
    return [f"{container}{annotation} = {initial}{draw(st.sampled_from(COMMENTS))}"]


@st.composite
def klass(draw: st.DrawFn, containers: tuple[str, ...]) -> list[str]:
    base = draw(st.sampled_from(("nn.Module", "object", "Module", "torch.nn.Module", "")))
    lines = [f"class Holder{draw(st.integers(0, 9))}({base}):"]
    for container in draw(st.lists(st.sampled_from(containers), min_size=1, max_size=2, unique=True)):
        lines += [f"    {line}" for line in draw(definition(container))]
    if draw(st.booleans()):
        instance = draw(st.sampled_from(("weakref.WeakKeyDictionary()", "{}", "weakref.WeakSet()")))
        lines += ["    def __init__(self):", "        super().__init__()", f"        self.table = {instance}"]
        lines += ["    def remember(self, t: torch.Tensor):", "        self.table[t] = 1"]
    for _ in range(draw(st.integers(1, 2))):
        lines += [f"    {line}" for line in draw(function(containers, method=True))]
    if draw(st.booleans()):
        name = draw(st.sampled_from(containers))
        lines += ["    @classmethod", "    def reset(cls):", f"        cls.{name} = {{}}"]
    return lines


@st.composite
def programs(draw: st.DrawFn) -> str:
    lines: list[str] = []
    if draw(st.booleans()):
        lines.append('"""A generated module."""')
    if draw(st.booleans()):
        lines.append("from __future__ import annotations")
    imports = draw(st.lists(st.sampled_from(IMPORTS), unique=True))
    lines += ["import torch", "import torch.nn as nn", *imports, "import threading", "lock = threading.Lock()"]
    containers = tuple(draw(st.lists(st.sampled_from(CONTAINERS), min_size=1, max_size=4, unique=True)))
    for container in containers:
        prefix = draw(st.sampled_from(("", "", "if True:", "if TYPE_CHECKING:\n    pass\nelse:")))
        definition_lines = draw(definition(container))
        if prefix:
            lines += prefix.split("\n") + [f"    {line}" for line in definition_lines]
        else:
            lines += definition_lines
    for _ in range(draw(st.integers(1, 4))):
        block = draw(st.one_of(function(containers), klass(containers)))
        lines += ["", "", *block]
    if draw(st.booleans()):  # an id()-keyed cache no other code touches: the WG005 shape, rare otherwise
        parameter = draw(st.sampled_from(PARAMETER_TYPES))
        lines += ["", "by_id = {}", "", "", f"def quantized(weight{parameter}):", "    if id(weight) in by_id:",
                  "        return by_id[id(weight)]", "    by_id[id(weight)] = len(by_id)", "    return by_id.get(id(weight))"]
    if draw(st.booleans()):
        lines += ["", f"__all__ = {list(containers)!r}"]
    if draw(st.booleans()):
        lines += ["", f"del {containers[-1]}"]
    text = "\n".join(lines) + "\n"
    if "TYPE_CHECKING" in text and "from typing import TYPE_CHECKING" not in text:
        text = text.replace("import torch\n", "import torch\nfrom typing import TYPE_CHECKING\n", 1)
    return text
