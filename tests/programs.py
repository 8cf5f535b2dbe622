"""A hypothesis grammar of the programs the rules are about: module- and class-level containers, and the
functions, methods, loops, hooks and caches that fill, read, rebind and pass them, with the evidence the
analysis looks for (annotations through aliases, iteration methods, ``self`` in modules) mixed with
everything that must stop a fix (escapes, operators, ``id()`` keys, noqa, shadowing).

Every program it draws is valid Python; ``test_generated_programs.py`` checks that too.
"""
from __future__ import annotations

import random
import re
from typing import Optional, Sequence, TypeVar

from hypothesis import strategies as st

T = TypeVar("T")

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
    "{None}",
    "set(())",
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


# --- runnable programs: the same containers, filled with real torch objects, used and printed -------------------
#
# ``runnable_programs()`` draws whole modules that run: a container (dict, dict(), OrderedDict, defaultdict,
# set, WeakKeyDictionary, WeakSet, or an id()-keyed dict; at module level, on a class, or on a module-level
# instance) filled from a real model (modules, parameters or buffers; through loops, setdefault, update,
# a comprehension rebound through ``global``, or a function whose parameter is annotated), then used
# through many API paths, each step printing what it sees (labels, never reprs of objects or ids), and
# finally a submodule replaced and the garbage collector run. Lines that depend on what the collector
# freed are printed with the ``[gc]`` prefix of ``differential_harness``: the program decides at run time
# (before the drop, identically on both sides) whether anything in the container is about to lose its
# last outside reference. ``main()`` prints the transcript ``test_generated_programs`` compares.

RUNNABLE_PREAMBLE = '''\
import collections
import collections.abc
import copy
import gc
import pickle
import weakref
from collections import OrderedDict, defaultdict

import torch
from torch import nn
'''

RUNNABLE_HELPERS = '''

def label(obj):
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return repr(obj)
    return getattr(obj, "label", type(obj).__name__)


def show(value):
    if isinstance(value, torch.Tensor):
        return f"tensor{tuple(value.shape)}"
    if isinstance(value, nn.Module):
        return label(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(show(item) for item in value) + "]"
    if callable(value):
        return "callable"
    return repr(value)


def dump(container):
    return len(pickle.dumps(container))


def fresh(index):
    layer = [nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2)][index]
    layer.label = f"{index}(new)"
    for name, obj in [*layer.named_parameters(), *layer.named_buffers()]:
        obj.label = f"{index}(new).{name}"
    return layer


def build():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    for name, obj in [*model.named_modules(), *model.named_parameters(), *model.named_buffers()]:
        obj.label = name or "root"
    return model
'''

#: Container kinds: (initializer, family). Families: "map", "set", "idmap" (keyed by id(obj)), and the weak
#: originals "weakmap" / "weakset" (already weak: their [gc] lines are not tagged).
RUNNABLE_KINDS = {
    "dict": ("{}", "map"),
    "dict()": ("dict()", "map"),
    "OrderedDict": ("OrderedDict()", "map"),
    "defaultdict(list)": ("defaultdict(list)", "map"),
    "defaultdict(int)": ("collections.defaultdict(int)", "map"),
    "set": ("set()", "set"),
    "WeakKeyDictionary": ("weakref.WeakKeyDictionary()", "weakmap"),
    "WeakSet": ("weakref.WeakSet()", "weakset"),
    "id": ("{}", "idmap"),
}

#: Key kinds: (iteration source, annotation for a filling function, key expressions used by the steps).
RUNNABLE_KEYS = {
    "modules": ("model.named_modules()", "nn.Module", ("model[0]", "model[1]", "model[2]", "model")),
    "children": ("model.named_children()", "nn.Module", ("model[0]", "model[2]")),
    "parameters": ("model.named_parameters()", "nn.Parameter", ("model[0].weight", "model[2].bias", "model[1].weight")),
    "buffers": ("model.named_buffers()", "torch.Tensor", ("model[1].running_mean", "model[1].num_batches_tracked")),
}
#: Keys that only ever look things up (inserting them would insert an object nothing else holds).
STRANGERS = ("nn.Linear(1, 1)", "torch.zeros(2)")
#: Keys a dict or set takes that cannot be weakly referenced.
PLAIN_KEYS = ('"total"', "None", "7")

#: Values stored by the fills, from the loop's ``name`` and ``obj``; the last ones refer to their key.
COMMON_VALUES = ("name", "len(name)", "name.upper()", "[]", "None", "0")
MODULE_VALUES = ("type(obj).__name__", "obj.training", "sum(p.numel() for p in obj.parameters())",
                 "obj.forward", "(obj, name)", "obj")
TENSOR_VALUES = ("tuple(obj.shape)", "obj.detach().clone()", "obj.numel()", "obj.dtype.itemsize", "obj.tolist()",
                 "obj.grad", "obj.detach()", "obj.view(-1)", "(obj, name)", "obj", "obj.clone()")
#: Values the use steps store.
STEP_VALUES = ('"v"', "1", "None", "[]", '"x" * 2', "(1, 2)")

#: Use steps: (template, needs a key, inserts the key, sees keys by equality). ``{c}`` is the container,
#: ``{k}`` a key expression, ``{v}`` a value.
MAP_STEPS = (
    ('print("len", len({c}))', False, False, False),
    ('print("bool", bool({c}), not {c})', False, False, False),
    ('print("get", show({c}.get({k})))', True, False, True),
    ('print("get default", show({c}.get({k}, "missing")))', True, False, True),
    ('print("in", {k} in {c}, {k} not in {c})', True, False, True),
    ('print("item", show({c}[{k}]))', True, True, True),
    ('{c}[{k}] = {v}\nprint("setitem", len({c}))', True, True, True),
    ('print("setdefault", show({c}.setdefault({k}, {v})), len({c}))', True, True, True),
    ('print("pop default", show({c}.pop({k}, None)), len({c}))', True, False, True),
    ('print("pop", show({c}.pop({k})))', True, False, True),
    ('del {c}[{k}]\nprint("del", len({c}))', True, False, True),
    ('print("keys", [label(k) for k in {c}.keys()])', False, False, False),
    ('print("iter", [label(k) for k in {c}])', False, False, False),
    ('print("values", [show(v) for v in {c}.values()])', False, False, False),
    ('print("items", [(label(k), show(v)) for k, v in {c}.items()])', False, False, False),
    ('print("sorted", sorted(label(k) for k in {c}))', False, False, False),
    ('{c}.update({{{k}: {v}}})\nprint("update", len({c}))', True, True, True),
    ('{c}.update([({k}, {v})])\nprint("update pairs", len({c}))', True, True, True),
    ('{c} |= {{{k}: {v}}}\nprint("ior", len({c}))', True, True, True),
    ('print("reversed", [label(k) for k in reversed({c})])', False, False, False),
    ('print("reversed keys", [label(k) for k in reversed({c}.keys())])', False, False, False),
    ('print("reversed items", [(label(k), show(v)) for k, v in reversed({c}.items())])', False, False, False),
    ('snapshot = {c}.copy()\nprint("copy", len(snapshot), [label(k) for k in snapshot] == [label(k) for k in {c}])', False, False, False),
    ('print("eq", {c} == dict({c}), {c} == {{}}, {c} != {{}})', False, False, True),
    ('print("popitem", label({c}.popitem()[0]) if {c} else "empty", len({c}))', False, False, False),
    ('{c}.clear()\nprint("clear", len({c}))', False, False, False),
    ('print("dict", [label(k) for k in dict({c})])', False, False, True),
    ('print("items in", all(pair in {c}.items() for pair in list({c}.items())))', False, False, True),
    ('print("keys in", {k} in {c}.keys())', True, False, True),
    ('print("Mapping", isinstance({c}, collections.abc.Mapping), isinstance({c}, collections.abc.MutableMapping))', False, False, False),
    ('plain = {{}}\nplain.update({c})\nprint("into a dict", [label(k) for k in plain])', False, False, True),
    ('print("repr", repr({c}))', False, False, False),
    ('merged = {{**{c}}}\nprint("spread", type(merged).__name__, [label(k) for k in merged])', False, False, True),
    ('view = {c}.keys()\n{c}[{k}] = {v}\nprint("live view", len(view), {k} in view)', True, True, True),
    ('print("setdefault none", show({c}.setdefault({k})), len({c}))', True, True, True),
    ('print("first", label(next(iter({c}))) if {c} else "empty")', False, False, False),
    ('for key in list({c}):\n    if label(key).endswith("bias"):\n        del {c}[key]\nprint("deleted biases", len({c}))', False, False, True),
)
SET_STEPS = (
    ('print("len", len({c}))', False, False, False),
    ('print("bool", bool({c}))', False, False, False),
    ('print("in", {k} in {c}, {k} not in {c})', True, False, True),
    ('{c}.add({k})\nprint("add", len({c}))', True, True, True),
    ('{c}.discard({k})\nprint("discard", len({c}))', True, False, True),
    ('{c}.remove({k})\nprint("remove", len({c}))', True, False, True),
    ('print("sorted", sorted(label(x) for x in {c}))', False, False, False),
    ('{c}.update([{k}])\nprint("update", len({c}))', True, True, True),
    ('union = {c} | {{{k}}}\nprint("union", type(union).__name__, sorted(label(x) for x in union))', True, False, True),
    ('rest = set(model.parameters()) - {c}\nprint("rsub", type(rest).__name__, sorted(label(x) for x in rest))', False, False, True),
    ('both = {c} & set(model.modules())\nprint("and", type(both).__name__, sorted(label(x) for x in both))', False, False, True),
    ('odd = {c} ^ set(model.children())\nprint("xor", sorted(label(x) for x in odd))', False, False, True),
    ('print("issubset", {c}.issubset(list(model.modules())), {c} <= set(model.modules()))', False, False, True),
    ('print("isdisjoint", {c}.isdisjoint([{k}]))', True, False, True),
    ('snapshot = {c}.copy()\nprint("copy", len(snapshot), sorted(map(label, snapshot)) == sorted(map(label, {c})))', False, False, False),
    ('print("eq", {c} == set({c}), {c} == set())', False, False, True),
    ('{c}.clear()\nprint("clear", len({c}))', False, False, False),
    ('print("with None", len({c} | {{None}}), None in ({c} | {{None}}))', False, False, True),
    ('{c}.difference_update([{k}])\nprint("difference_update", len({c}))', True, False, True),
    ('print("Set", isinstance({c}, collections.abc.Set))', False, False, False),
    ('print("frozenset", {c} == frozenset({c}), len(frozenset({c})))', False, False, True),
    ('{c} |= {{{k}}}\nprint("ior", len({c}))', True, True, True),
    ('{c} -= {{{k}}}\nprint("isub", len({c}))', True, False, True),
    ('{c} &= set(model.modules()) | set(model.parameters())\nprint("iand", len({c}))', False, False, True),
    ('print("list", len(list({c})), len([x for x in {c} if x is not None]))', False, False, False),
)
ID_STEPS = (
    ('print("len", len({c}))', False, False, False),
    ('print("in", id({k}) in {c})', True, False, False),
    ('print("get", show({c}.get(id({k}))))', True, False, False),
    ('print("item", show({c}[id({k})]))', True, False, False),
    ('{c}[id({k})] = {v}\nprint("setitem", len({c}))', True, True, False),
    ('print("setdefault", show({c}.setdefault(id({k}), {v})), len({c}))', True, True, False),
    ('print("pop", show({c}.pop(id({k}), None)), len({c}))', True, False, False),
    ('del {c}[id({k})]\nprint("del", len({c}))', True, False, False),
    ('print("values", [show(v) for v in {c}.values()])', False, False, False),
    ('{c}.clear()\nprint("clear", len({c}))', False, False, False),
)
#: Uses the runtime cannot honour: the codemod must refuse, whatever else the program does.
ESCAPES = (
    'print("isinstance dict", isinstance({c}, dict), isinstance({c}, set))',
    'print("pickled", dump({c}))',
    'print("type", type({c}).__name__)',
    'merged = {c} | type({c})()\nprint("or", type(merged).__name__, len(merged))',
    'alias = {c}\nprint("alias", len(alias))',
    'print("keys of an id map", len(list({c})))',
    'snapshot = copy.deepcopy({c})\nprint("deepcopy", len(snapshot))',
)
#: Uses of the instance that holds the container (``holder``): they take the container along.
HOLDER_ESCAPES = (
    'try:\n    print("pickled holder", dump(holder))\nexcept Exception:\n    print("pickled holder: cannot")',
    'backup = copy.deepcopy(holder)\nprint("deepcopied holder", len(backup.{name}))',
    'print("holder state", sorted(vars(holder)))',
)


def _indent(text: str, depth: int = 1) -> list[str]:
    return ["    " * depth + line for line in text.split("\n")]


class _Choices:
    """Where a runnable program's choices come from: hypothesis (``runnable_programs``, shrinkable) or a
    seeded ``random.Random`` (``runnable_program``: independent, diverse programs, the same for a seed)."""

    def __init__(self, draw: Optional[st.DrawFn] = None, seed: Optional[int] = None) -> None:
        self.draw, self.random = draw, random.Random(seed)

    def pick(self, options: Sequence[T]) -> T:
        return self.draw(st.sampled_from(options)) if self.draw else self.random.choice(options)

    def integer(self, low: int, high: int) -> int:
        return self.draw(st.integers(low, high)) if self.draw else self.random.randint(low, high)

    def coin(self) -> bool:
        return bool(self.integer(0, 1))


@st.composite
def runnable_programs(draw: st.DrawFn) -> str:
    return _runnable(_Choices(draw=draw))


def runnable_program(seed: int) -> str:
    """The runnable program for ``seed``: the same text on every run and every machine."""
    return _runnable(_Choices(seed=seed))


def _runnable(choose: _Choices) -> str:
    kind = choose.pick(sorted(RUNNABLE_KINDS))
    initial, family = RUNNABLE_KINDS[kind]
    keys = choose.pick(sorted(RUNNABLE_KEYS))
    source, annotation, key_expressions = RUNNABLE_KEYS[keys]
    place = choose.pick(("module", "module", "class", "instance"))
    name = choose.pick(("table", "names", "seen", "cache", "registry_"))
    container = {"module": name, "class": f"Holder.{name}", "instance": f"holder.{name}"}[place]
    weak = family in ("weakmap", "weakset")
    tensors = keys in ("parameters", "buffers")
    # a WeakKeyDictionary / WeakSet compares tensor keys with ==, which raises: only insert each once and
    # never look one up (the fix is meant to change exactly that)
    equality_safe = not (weak and tensors)
    plain_keys_ok = family in ("map", "set")

    lines = [*RUNNABLE_PREAMBLE.split("\n")]
    if place == "module":
        lines += [f"{name} = {initial}"]
    elif place == "class":
        lines += ["", "", "class Holder:", f"    {name} = {initial}"]
    else:
        lines += ["", "", "class Holder:", "    def __init__(self):", f"        self.{name} = {initial}", "", "", "holder = Holder()"]
    lines += RUNNABLE_HELPERS.split("\n")

    def fill_statement(value: str) -> list[str]:
        if family == "idmap":
            return [f"{container}[id(obj)] = {value}"]
        if family in ("set", "weakset"):
            return [f"{container}.add(obj)"]
        if kind == "defaultdict(list)" and choose.coin():
            return [f"{container}[obj].append({value})"]
        if kind == "defaultdict(int)" and choose.coin():
            return [f"{container}[obj] += 1"]
        if choose.coin() and equality_safe:
            return [f"{container}.setdefault(obj, {value})"]
        return [f"{container}[obj] = {value}"]

    values = COMMON_VALUES + (TENSOR_VALUES if tensors else MODULE_VALUES)
    functions: list[list[str]] = []
    calls: list[str] = []
    fills = 1 if not equality_safe else choose.integer(1, 2)
    for number in range(fills):
        value = choose.pick(values)
        style = choose.pick(("loop", "loop", "annotated", "update", "rebind"))
        body: list[str]
        if style == "annotated":
            helper = f"remember_{number}"
            functions.append([f"def {helper}(obj: {annotation}, name: str) -> None:", *_indent("\n".join(fill_statement(value)))])
            body = [f"for name, obj in {source}:", f"    {helper}(obj, name)"]
        elif style == "update" and family in ("map", "set") and not kind.startswith("defaultdict"):
            if family == "map":
                body = [f"{container}.update([(obj, {value}) for name, obj in {source}])"]
            else:
                body = [f"{container}.update(obj for name, obj in {source})"]
        elif style == "rebind" and place == "module" and kind in ("dict", "set"):
            built = f"{{obj: {value} for name, obj in {source}}}" if family == "map" else f"{{obj for name, obj in {source}}}"
            body = [f"global {name}", f"{name} = {built}"]
        else:
            body = [f"for name, obj in {source}:", *_indent("\n".join(fill_statement(value)))]
        functions.append([
            f"def fill_{number}(model):", *(["    " + body.pop(0)] if body[0].startswith("global") else []), "    try:",
            *_indent("\n".join(body), 2), "    except Exception as error:", f'        print("fill_{number} raised", type(error).__name__)',
        ])
        calls.append(f"fill_{number}(model)")

    steps = {"map": MAP_STEPS, "set": SET_STEPS, "idmap": ID_STEPS, "weakmap": MAP_STEPS, "weakset": SET_STEPS}[family]
    if weak:  # what WeakKeyDictionary and WeakSet offer as a dict and a set do (no reversed(), no set
        # operators with plain sets, no == with a dict or set, a repr of their own)
        steps = tuple(step for step in steps if re.match(r'(print\(|\{c\}\.\w+\(|\{c\}\[|for key|view =|snapshot =|plain =)', step[0])
                      and not re.search(r"reversed\(|repr\(|==|frozenset|\{c\} [-|&^]|\| \{\{|\.issubset|\.isdisjoint", step[0]))
    if not equality_safe:
        steps = tuple(step for step in steps if not step[1] and not step[3])
    insertable = key_expressions + (PLAIN_KEYS if plain_keys_ok else ())
    lookups = insertable + (STRANGERS if equality_safe else ())
    for number in range(choose.integer(2, 12)):
        if family in ("map", "set", "idmap") and choose.integer(0, 24) == 0:
            template = choose.pick(ESCAPES + (HOLDER_ESCAPES if place == "instance" else ()))
            key = choose.pick(key_expressions)
        elif weak and place == "instance" and choose.integer(0, 12) == 0:
            template, key = choose.pick(HOLDER_ESCAPES), ""
        else:
            template, needs_key, inserts, _ = choose.pick(steps)
            key = choose.pick(insertable if inserts else lookups) if needs_key else ""
        statement = template.format(c=container, k=key, v=choose.pick(STEP_VALUES), name=name)
        rebinds = place == "module" and re.search(rf"^{name} [-|&^]?=", statement, re.MULTILINE)
        functions.append([
            f"def step_{number}(model):", *([f"    global {name}"] if rebinds else []), "    try:", *_indent(statement, 2),
            "    except Exception as error:", f'        print("step_{number} raised", type(error).__name__)',
        ])
        calls.append(f"step_{number}(model)")
        if choose.integer(0, 9) == 0 and equality_safe:  # a second fill between the steps
            calls.append("fill_0(model)")

    if choose.integer(0, 4):  # replace a submodule, collect, and look again
        index = choose.integer(0, 2)
        if family == "idmap":
            held = f"any(id(o) in {container} for o in [old, *old.parameters(), *old.buffers()])"
            seen = [f'print(f"{{tag}}values after the drop: {{[show(v) for v in {container}.values()]}}")']
        else:
            held = "False" if weak else f"any(o in {container} for o in [old, *old.parameters(), *old.buffers()])"
            seen = [f'print(f"{{tag}}labels after the drop: {{sorted(label(k) for k in {container})}}")']
        functions.append([
            "def drop(model):",
            f"    old = model[{index}]",
            f"    tag = \"[gc] \" if {held} else \"\"",
            f"    model[{index}] = fresh({index})",
            "    del old",
            "    gc.collect()",
            f'    print(f"{{tag}}len after the drop: {{len({container})}}")',
            *_indent("\n".join(seen)),
        ])
        calls.append("drop(model)")

    for function in functions:
        lines += ["", "", *function]
    lines += ["", "", "def main():", "    model = build()", *(f"    {call}" for call in calls)]
    return "\n".join(lines) + "\n"
