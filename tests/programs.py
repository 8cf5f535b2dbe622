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
                  "        return by_id[id(weight)]", "    by_id[id(weight)] = [len(by_id)]", "    return by_id.get(id(weight))"]
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
#
# Four more families: lists and deques (registries filled by loops or by layers that append ``self``,
# stacks pushed and popped, and the deque's own methods, which WeakIdList lacks); mixed-type operators
# (``m | defaultdict(int)``, ``OrderedDict(...) | m``, ``frozenset(...) & s``, in place too); ownership
# (``own_N`` puts in what only the container keeps, which the codemod must refuse; ``kept_N`` what the model,
# a module global or the caller keeps); and caches (``_cache_program``). A program the codemod must refuse
# says so on its first line (``REFUSED_MARK``); ``SHAPES`` forces a family, for the tests' explicit examples.

RUNNABLE_PREAMBLE = '''\
import collections
import collections.abc
import copy
import gc
import pickle
import weakref
from collections import OrderedDict, defaultdict, deque

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

#: Container kinds: (initializer, family). Families: "map", "set", "idmap" (keyed by id(obj)), "list" (a list or
#: a deque without maxlen), and the weak originals "weakmap" / "weakset" (already weak: their [gc] lines are
#: not tagged).
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
    "list": ("[]", "list"),
    "list()": ("list()", "list"),
    "deque": ("deque()", "list"),
    "collections.deque": ("collections.deque()", "list"),
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


#: A list's or deque's use steps, as MAP_STEPS: (template, needs a key, inserts the key, compares elements with
#: ``==``). A list of tensors raises there (``t in [p, q]`` calls ``t == p``) where ``WeakIdList``, by design,
#: matches by identity: those steps are drawn for lists of modules only.
SEQUENCE_STEPS = (
    ('print("len", len({c}), bool({c}), not {c})', False, False, False),
    ('print("iter", [label(x) for x in {c}])', False, False, False),
    ('print("in", {k} in {c}, {k} not in {c})', True, False, True),
    ('print("index", {c}.index({k}))', True, False, True),
    ('print("count", {c}.count({k}))', True, False, True),
    ('{c}.remove({k})\nprint("remove", [label(x) for x in {c}])', True, False, True),
    ('print("pop", label({c}.pop()), len({c}))', False, False, False),
    ('{c}.append({k})\nprint("append", len({c}))', True, True, False),
    ('{c}.insert(1, {k})\nprint("insert", [label(x) for x in {c}])', True, True, False),
    ('{c}.insert(0, {k})\nprint("insert first", label({c}[0]), len({c}))', True, True, False),
    ('{c}.extend([{k}, {k}])\nprint("extend", len({c}))', True, True, False),
    ('{c}.extend(model.children())\nprint("extend children", [label(x) for x in {c}])', False, False, False),
    ('{c}.extend(p for p in model.parameters())\nprint("extend parameters", len({c}))', False, False, False),
    ('{c} += [{k}]\nprint("iadd", len({c}))', True, True, False),
    ('print("item", label({c}[0]), label({c}[-1]))', False, False, False),
    ('print("reversed", [label(x) for x in reversed({c})])', False, False, False),
    ('print("eq", {c} == list({c}), {c} == [], {c} != [])', False, False, False),
    ('{c}.clear()\nprint("clear", len({c}))', False, False, False),
    ('{c}.reverse()\nprint("reverse", [label(x) for x in {c}])', False, False, False),
    ('print("sorted", sorted(label(x) for x in {c}))', False, False, False),
    ('print("sorted by key", [label(x) for x in sorted({c}, key=label)])', False, False, False),
    ('{c}[0] = {k}\nprint("setitem", label({c}[0]), len({c}))', True, True, False),
    ('del {c}[0]\nprint("delitem", len({c}))', False, False, False),
    ('print("enumerate", [(i, label(x)) for i, x in enumerate({c})][:3])', False, False, False),
    ('print("any", any(x is model for x in {c}), sum(1 for x in {c} if isinstance(x, nn.Module)))', False, False, False),
    ('print("repr", repr({c})[:12])', False, False, False),
    ('joined = {c} + {c}\nprint("concat", len(joined), len({c} * 2))', False, False, False),
)
#: Steps of a list that a deque does not take (slices, ``sort``, ``pop(i)``, order with a list).
LIST_ONLY_STEPS = (
    ('print("pop 0", label({c}.pop(0)), len({c}))', False, False, False),
    ('print("slice", [label(x) for x in {c}[1:3]], [label(x) for x in {c}[::-1]])', False, False, False),
    ('{c}.sort(key=label)\nprint("sort", [label(x) for x in {c}])', False, False, False),
    ('{c}.sort(key=label, reverse=True)\nprint("sort reverse", [label(x) for x in {c}])', False, False, False),
    ('{c}.sort()\nprint("sort without key", len({c}))', False, False, False),
    ('{c}[1:3] = [{k}]\nprint("slice assign", [label(x) for x in {c}])', True, True, False),
    ('{c}[:1] = [7, None]\nprint("slice assign plain", [label(x) for x in {c}])', False, False, False),
    ('del {c}[1:]\nprint("del slice", len({c}))', False, False, False),
    ('snapshot = {c}.copy()\nprint("copy", len(snapshot), [label(x) for x in snapshot] == [label(x) for x in {c}])', False, False, False),
    ('print("order", {c} < [], {c} <= list({c}), [] < {c})', False, False, False),
)
#: Steps only a deque takes: ``WeakIdList`` has none of them, so the codemod must refuse.
DEQUE_ONLY_STEPS = (
    ('{c}.appendleft({k})\nprint("appendleft", len({c}))', True, True, False),
    ('print("popleft", label({c}.popleft()), len({c}))', False, False, False),
    ('{c}.rotate(1)\nprint("rotate", [label(x) for x in {c}])', False, False, False),
    ('{c}.extendleft([{k}])\nprint("extendleft", len({c}))', True, True, False),
    ('print("maxlen", {c}.maxlen)', False, False, False),
)
#: Uses of a list the runtime cannot honour, as ESCAPES.
LIST_ESCAPES = (
    'print("isinstance list", isinstance({c}, list), isinstance({c}, collections.abc.Sequence))',
    'print("pickled", dump({c}))',
    'print("type", type({c}).__name__)',
    'alias = {c}\nprint("alias", len(alias))',
    'snapshot = copy.deepcopy({c})\nprint("deepcopy", len(snapshot))',
)

#: Operators that mix the container with another kind of dict or set (the runtime computes them on a plain
#: container of the live entries, so Python picks the other operand's method where it did), printing the
#: result's type and contents; each prints a line that starts with "op ". Flags as in MAP_STEPS.
_ITEMS = "[(label(k), show(v)) for k, v in {r}.items()]"
_SORTED = "sorted(label(x) for x in {r})"
MAP_OPERATORS = tuple((template.replace("ITEMS", _ITEMS.format(r="r")).replace("OTHER", _ITEMS.format(r="other")), *flags) for template, *flags in (
    ('r = {c} | defaultdict(int)\nprint("op | defaultdict", type(r).__name__, ITEMS)', False, False, True),
    ('r = defaultdict(list, {{{k}: {v}}}) | {c}\nprint("op defaultdict |", type(r).__name__, ITEMS)', True, False, True),
    ('r = OrderedDict([({k}, {v})]) | {c}\nprint("op OrderedDict |", type(r).__name__, ITEMS)', True, False, True),
    ('r = {c} | OrderedDict([({k}, {v})])\nprint("op | OrderedDict", type(r).__name__, ITEMS)', True, False, True),
    ('r = {c} | {{{k}: {v}}}\nprint("op | dict", type(r).__name__, ITEMS)', True, False, True),
    ('r = {{{k}: {v}}} | {c}\nprint("op dict |", type(r).__name__, ITEMS)', True, False, True),
    ('r = {c} | [({k}, {v})]\nprint("op | pairs", type(r).__name__)', True, False, True),
    ('print("op ==", {c} == dict({c}), dict({c}) == {c}, {c} == {{{k}: {v}}}, {{}} != {c})', True, False, True),
    ('print("op == OrderedDict", {c} == OrderedDict({c}.items()), OrderedDict() == {c})', False, False, True),
    ('print("op == defaultdict", {c} == defaultdict(int, {c}.items()), defaultdict(int) != {c})', False, False, True),
    ('{c} |= OrderedDict([({k}, {v})])\nprint("op |= OrderedDict", len({c}))', True, True, True),
    ('{c} |= defaultdict(int, {{{k}: {v}}})\nprint("op |= defaultdict", len({c}))', True, True, True),
    ('{c} |= [({k}, {v})]\nprint("op |= pairs", len({c}))', True, True, True),
    ('other = defaultdict(int)\nother |= {c}\nprint("op defaultdict |=", type(other).__name__, OTHER)', False, False, True),
    ('r = {c}.keys() | frozenset([{k}])\nprint("op keys |", type(r).__name__, ' + _SORTED.format(r="r") + ')', True, False, True),
    ('r = frozenset([{k}]) & {c}.keys()\nprint("op & keys", type(r).__name__, ' + _SORTED.format(r="r") + ')', True, False, True),
    ('r = {c}.items() - {{({k}, {v})}}\nprint("op items -", type(r).__name__, len(r))', True, False, True),
))
SET_OPERATORS = tuple((template.replace("SORTED", _SORTED.format(r="r")).replace("OTHER", _SORTED.format(r="other")), *flags) for template, *flags in (
    ('r = {c} | frozenset(model.children())\nprint("op | frozenset", type(r).__name__, SORTED)', False, False, True),
    ('r = frozenset(model.children()) | {c}\nprint("op frozenset |", type(r).__name__, SORTED)', False, False, True),
    ('r = frozenset(model.modules()) & {c}\nprint("op frozenset &", type(r).__name__, SORTED)', False, False, True),
    ('r = {c} & frozenset(model.parameters())\nprint("op & frozenset", type(r).__name__, SORTED)', False, False, True),
    ('r = frozenset(model.modules()) - {c}\nprint("op frozenset -", type(r).__name__, SORTED)', False, False, True),
    ('r = {c} - frozenset([{k}])\nprint("op - frozenset", type(r).__name__, SORTED)', True, False, True),
    ('r = frozenset([{k}, None]) ^ {c}\nprint("op frozenset ^", type(r).__name__, SORTED)', True, False, True),
    ('r = {c} ^ frozenset(model.parameters())\nprint("op ^ frozenset", type(r).__name__, SORTED)', False, False, True),
    ('r = {{{k}}} | {c}\nprint("op set |", type(r).__name__, SORTED)', True, False, True),
    ('r = {c}.union(frozenset([{k}]))\nprint("op union frozenset", type(r).__name__, SORTED)', True, False, True),
    ('r = frozenset(model.children()).intersection({c})\nprint("op frozenset intersection", type(r).__name__, SORTED)', False, False, True),
    ('r = {c} | dict.fromkeys([{k}]).keys()\nprint("op | keys", type(r).__name__, SORTED)', True, False, True),
    ('r = dict.fromkeys([{k}]).keys() | {c}\nprint("op keys |", type(r).__name__, SORTED)', True, False, True),
    ('print("op cmp", {c} == frozenset({c}), frozenset({c}) == {c}, {c} <= frozenset(model.modules()), frozenset() < {c}, {c} >= frozenset([{k}]))', True, False, True),
    ('{c} |= frozenset([{k}])\nprint("op |= frozenset", len({c}))', True, True, True),
    ('{c} -= frozenset([{k}])\nprint("op -= frozenset", len({c}))', True, False, True),
    ('{c} &= frozenset(model.modules()) | frozenset(model.parameters())\nprint("op &= frozenset", len({c}))', False, False, True),
    ('{c} ^= frozenset([{k}])\nprint("op ^= frozenset", len({c}))', True, True, True),
    ('other = frozenset([None])\nother |= {c}\nprint("op frozenset |=", type(other).__name__, OTHER)', False, False, True),
    ('other = set(model.children())\nother -= {c}\nprint("op set -=", type(other).__name__, OTHER)', False, False, True),
))

#: Fills of objects that only the container would keep (the codemod must refuse them), by what the
#: container holds: each a function ``own_N`` (and its helpers), with ``{put:X}`` the statement that stores
#: ``X``, ``{a}`` an annotation of the object's parameter or nothing, ``{m}`` the model's.
OWNED_FILLS = {
    "modules": (
        ("deepcopy", "def own_{n}(model{m}):\n    {put:copy.deepcopy(model[1])}"),
        ("deepcopy whole", "def own_{n}(model{m}):\n    {put:copy.deepcopy(model)}"),
        ("copy in a local", "def own_{n}(model{m}):\n    replica = copy.deepcopy(model[2])\n    replica.label = \"replica\"\n    {put:replica}"),
        ("helper's local", "def own_register_{n}(obj{a}):\n    {put:obj}\n\n\ndef own_{n}(model):\n    local = nn.Linear(2, 2)\n    local.label = \"local\"\n    own_register_{n}(local)"),
        ("built in the call", "def own_{n}(model):\n    {put:nn.Linear(2, 2)}"),
        ("a factory's result", "def make_extra_{n}():\n    return nn.Linear(2, 2)\n\n\ndef own_{n}(model):\n    {put:make_extra_{n}()}"),
        ("a call's result", "def own_{n}(model):\n    {put:fresh(1)}"),  # ``fresh`` returns an item of a list it builds
    ),
    "tensors": (
        ("deepcopy", "def own_{n}(model{m}):\n    {put:copy.deepcopy(model[0].weight)}"),
        ("helper's local", "def own_register_{n}(obj{a}):\n    {put:obj}\n\n\ndef own_{n}(model):\n    local = torch.ones(3)\n    local.label = \"local\"\n    own_register_{n}(local)"),
        ("detached copy kept", "def own_keep_{n}(t: torch.Tensor):\n    kept = t.detach().to(torch.float64)\n    {put:kept}\n\n\ndef own_{n}(model):\n    own_keep_{n}(model[0].weight)"),
        ("detached copy kept, unannotated", "def own_keep_{n}(t):\n    kept = t.detach().to(torch.float64)\n    {put:kept}\n\n\ndef own_{n}(model):\n    own_keep_{n}(model[0].weight)"),
        ("detached copy stored", "def own_{n}(model{m}):\n    {put:model[0].weight.detach().to(torch.float64)}"),
        ("built in the call", "def own_{n}(model):\n    {put:torch.zeros(3)}"),
        ("a factory's result", "def make_extra_{n}():\n    return torch.ones(2)\n\n\ndef own_{n}(model):\n    {put:make_extra_{n}()}"),
    ),
}
#: Fills of objects something else keeps (the model, a module global, the caller): the codemod may rewrite
#: them. Each a function ``kept_N``; ``{extra}`` is an object ``main()`` holds to its end.
KEPT_FILLS = {
    "modules": (
        ("alias", "def kept_{n}(model{m}):\n    kept = model[2]\n    {put:kept}"),
        ("module global", "SPARE_{n} = nn.Linear(2, 2)\nSPARE_{n}.label = \"spare\"\n\n\ndef kept_{n}(model):\n    {put:SPARE_{n}}"),
        ("caller's object", "def kept_{n}(model, extra{a}):\n    {put:extra}"),
        ("attached to the model", "def kept_{n}(model):\n    model.extra = nn.Linear(2, 2)\n    model.extra.label = \"extra\"\n    {put:model.extra}"),
        ("returned by a method", "def kept_{n}(model{m}):\n    {put:model[2].float()}"),
    ),
    "tensors": (
        ("alias", "def kept_{n}(model{m}):\n    kept = model[0].weight\n    {put:kept}"),
        ("module global", "SPARE_{n} = torch.ones(3)\nSPARE_{n}.label = \"spare\"\n\n\ndef kept_{n}(model):\n    {put:SPARE_{n}}"),
        ("caller's object", "def kept_{n}(model, extra{a}):\n    {put:extra}"),
        ("attached to the model", "def kept_{n}(model):\n    model.register_buffer(\"extra\", torch.ones(3))\n    model.extra.label = \"extra\"\n    {put:model.extra}"),
    ),
}
OWNER_ANNOTATIONS = {"modules": ("", ": nn.Module", ": nn.Module"), "tensors": ("", ": torch.Tensor", ": torch.Tensor")}
MODEL_ANNOTATIONS = ("", ": nn.Module", ": nn.Sequential")

def _indent(text: str, depth: int = 1) -> list[str]:
    return ["    " * depth + line for line in text.split("\n")]


#: The shape families a program can be forced into (``runnable_program(seed, shape)``,
#: ``runnable_programs(shape)``): (container kind, key kind, place), None where the draw decides. Every other
#: choice is still drawn, so the explicit examples of the tests cover each family (and each rule code the
#: grammar reaches) whatever a hypothesis release or a seed draws.
SHAPES: dict[str, tuple[Optional[str], Optional[str], Optional[str]]] = {
    "map": ("dict", None, "module"),  # WG001
    "defaultdict on an instance": ("defaultdict(int)", None, "instance"),
    "class set": ("set", None, "class"),  # WG003
    "id map": ("id", None, None),  # WG005
    "weak map": ("WeakKeyDictionary", "parameters", None),  # WG004: tensor keys, compared with ==
    "weak set": ("WeakSet", "buffers", None),  # WG004
    "list of modules": ("list", "modules", "module"),  # WG002, WeakIdList
    "list of layers that register themselves": ("list", "modules", None),  # REGISTRY.append(self) in __init__
    "list of tensors": ("list()", "parameters", None),
    "deque": ("collections.deque", "children", None),
    "deque-only step": ("deque", "modules", None),  # appendleft & co.: refused
    "map operators": ("dict", None, None),  # m | defaultdict(int), OrderedDict(...) | m
    "set operators": ("set", None, None),  # s | frozenset(...), frozenset(...) & s
    "sole owner": (None, None, None),  # own_N: refused
    "sole owner, list": ("list", None, None),
    "owned elsewhere": (None, None, None),  # kept_N: may be rewritten
    "cache function": (None, None, None),  # WG006 on a function of a module or a tensor
    "cache method": (None, None, None),  # WG006 on a method: bound and unbound calls
}
#: The families "sole owner" and "owned elsewhere" draw from (ownership needs equality-safe keys).
_OWNERSHIP_KINDS = ("dict", "OrderedDict", "set", "list", "deque")


class _Choices:
    """Where a runnable program's choices come from: hypothesis (``runnable_programs``, shrinkable) or a
    seeded ``random.Random`` (``runnable_program``: independent, diverse programs, the same for a seed);
    ``shape`` forces one of ``SHAPES``."""

    def __init__(self, draw: Optional[st.DrawFn] = None, seed: Optional[int] = None, shape: Optional[str] = None) -> None:
        assert shape is None or shape in SHAPES, shape
        self.draw, self.random, self.shape = draw, random.Random(seed), shape

    def pick(self, options: Sequence[T]) -> T:
        return self.draw(st.sampled_from(options)) if self.draw else self.random.choice(options)

    def integer(self, low: int, high: int) -> int:
        return self.draw(st.integers(low, high)) if self.draw else self.random.randint(low, high)

    def coin(self) -> bool:
        return bool(self.integer(0, 1))


@st.composite
def runnable_programs(draw: st.DrawFn, shape: Optional[str] = None) -> str:
    return _runnable(_Choices(draw=draw, shape=shape))


def runnable_program(seed: int, shape: Optional[str] = None) -> str:
    """The runnable program for ``seed`` (of the family ``shape``, if given): the same text on every run and
    every machine."""
    return _runnable(_Choices(seed=seed, shape=shape))


#: The first line of a program the codemod must leave as it is, with why (``test_generated_programs``
#: checks that it was refused, not rewritten).
REFUSED_MARK = "# expect: left as is:"


def expected_refusal(text: str) -> Optional[str]:
    """Why the codemod must refuse this generated program, or None when it may rewrite it."""
    first = text.split("\n", 1)[0]
    return first[len(REFUSED_MARK):].strip() if first.startswith(REFUSED_MARK) else None


def _runnable(choose: _Choices) -> str:
    if choose.shape is not None:
        cache = choose.shape.startswith("cache")
    else:
        cache = choose.integer(0, 4) == 0
    text, refusals = _cache_program(choose) if cache else _container_program(choose)
    if refusals:
        text = f"{REFUSED_MARK} {'; '.join(dict.fromkeys(refusals))}\n" + text
    return text


def _put(family: str, container: str, obj: str, value: str) -> str:
    """The statement that stores ``obj`` in the container."""
    if family in ("set", "weakset"):
        return f"{container}.add({obj})"
    if family == "list":
        return f"{container}.append({obj})"
    return f"{container}[{obj}] = {value}"


def _contents(family: str, container: str) -> str:
    """What the container holds, printed: labels in order for a list, sorted for the others."""
    if family == "idmap":
        return f"[show(v) for v in {container}.values()]"
    if family == "list":
        return f"[label(x) for x in {container}]"
    return f"sorted(label(k) for k in {container})"


def _ownership_fill(choose: _Choices, table: dict, what: str, number: int, put) -> tuple[str, list[str]]:
    """One fill of ``OWNED_FILLS`` / ``KEPT_FILLS``: its form's name and its lines."""
    form, template = choose.pick(table[what])
    code = template.replace("{n}", str(number)).replace("{a}", choose.pick(OWNER_ANNOTATIONS[what])).replace("{m}", choose.pick(MODEL_ANNOTATIONS))
    code = re.sub(r"\{put:(.*)\}$", lambda match: put(match[1]), code, flags=re.MULTILINE)
    return form, code.split("\n")


def _container_program(choose: _Choices) -> tuple[str, list[str]]:
    """A container program, and the reasons the codemod must refuse it (none: it may rewrite it)."""
    shape = choose.shape
    forced_kind, forced_keys, forced_place = SHAPES[shape] if shape else (None, None, None)
    owned_shape = shape is not None and shape.startswith("sole owner")
    kind = forced_kind or choose.pick(_OWNERSHIP_KINDS if owned_shape or shape == "owned elsewhere" else sorted(RUNNABLE_KINDS))
    initial, family = RUNNABLE_KINDS[kind]
    keys = forced_keys or choose.pick(sorted(RUNNABLE_KEYS))
    source, annotation, key_expressions = RUNNABLE_KEYS[keys]
    place = forced_place or choose.pick(("module", "module", "class", "instance"))
    refusals: list[str] = []
    name = choose.pick(("table", "names", "seen", "cache", "registry_"))
    container = {"module": name, "class": f"Holder.{name}", "instance": f"holder.{name}"}[place]
    weak = family in ("weakmap", "weakset")
    sequence = family == "list"
    deque = kind.endswith("deque")
    tensors = keys in ("parameters", "buffers")
    # a WeakKeyDictionary / WeakSet compares tensor keys with ==, which raises: only insert each once and
    # never look one up (the fix is meant to change exactly that)
    equality_safe = not (weak and tensors)
    # a list of tensors compares them with == in ``in``, ``index``, ``count`` and ``remove`` (which raises or
    # calls a one-element tensor equal to a number); WeakIdList matches by identity, by design
    lookups_safe = equality_safe and not (sequence and tensors)
    plain_keys_ok = family in ("map", "set", "list")

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
        if sequence:
            return [choose.pick((f"{container}.append(obj)", f"{container}.append(obj)", f"{container}.insert(0, obj)", f"{container}.insert(len({container}), obj)"))]
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
        style = choose.pick(("loop", "loop", "annotated", "update", "rebind", "registers itself"))
        if number == 0 and shape == "list of layers that register themselves":
            style = "registers itself"
        if number == 0 and shape == "id map":  # the annotation is what tells id(obj) is of a framework object
            style = "annotated"
        body: list[str]
        if style == "registers itself" and family in ("list", "set") and keys in ("modules", "children"):
            # a layer class whose __init__ puts ``self`` in the registry; the model keeps the layers
            layer = f"Registered{number}"
            functions.append([f"class {layer}(nn.Identity):", "    def __init__(self, label):", "        super().__init__()",
                              "        self.label = label", f"        {_put(family, container, 'self', '')}"])
            # named by the model's size: a second fill adds layers, never replaces the first's (which only the
            # registry would then keep)
            body = [f"for index in range({choose.integer(1, 2)}):", f'    new = f"registered{number}_{{len(model)}}"',
                    f"    model.add_module(new, {layer}(new))"]
        elif style == "annotated":
            helper = f"remember_{number}"
            functions.append([f"def {helper}(obj: {annotation}, name: str) -> None:", *_indent("\n".join(fill_statement(value)))])
            body = [f"for name, obj in {source}:", f"    {helper}(obj, name)"]
        elif style == "update" and sequence:
            body = [f"{container}.extend(obj for name, obj in {source})"]
            if choose.coin():
                body = [*([f"global {name}"] if place == "module" else []), f"{container} += [obj for name, obj in {source}]"]
        elif style == "update" and family in ("map", "set") and not kind.startswith("defaultdict"):
            if family == "map":
                body = [f"{container}.update([(obj, {value}) for name, obj in {source}])"]
            else:
                body = [f"{container}.update(obj for name, obj in {source})"]
        elif style == "rebind" and place == "module" and kind in ("dict", "set", "list"):
            built = {"map": f"{{obj: {value} for name, obj in {source}}}", "set": f"{{obj for name, obj in {source}}}",
                     "list": f"[obj for name, obj in {source}]"}[family]
            body = [f"global {name}", f"{name} = {built}"]
        else:
            body = [f"for name, obj in {source}:", *_indent("\n".join(fill_statement(value)))]
        functions.append([
            f"def fill_{number}(model):", *(["    " + body.pop(0)] if body[0].startswith("global") else []), "    try:",
            *_indent("\n".join(body), 2), "    except Exception as error:", f'        print("fill_{number} raised", type(error).__name__)',
        ])
        calls.append(f"fill_{number}(model)")

    # objects only the container would keep (own_N: the codemod must refuse), and objects kept elsewhere
    # (kept_N: it may rewrite), each looked at right after its fill
    main_locals: list[str] = []
    if family != "idmap" and equality_safe:
        what = "tensors" if tensors else "modules"
        put = lambda obj: _put(family, container, obj, '"own"')  # noqa: E731
        for number, (table, prefix) in enumerate(((OWNED_FILLS, "own"), (KEPT_FILLS, "kept"))):
            if owned_shape or shape == "owned elsewhere":
                if (table is OWNED_FILLS) != owned_shape:
                    continue
            elif shape is not None or choose.integer(0, 4):
                continue
            form, code = _ownership_fill(choose, table, what, number, put)
            if table is OWNED_FILLS:
                refusals.append(f"the container alone keeps what {prefix}_{number} puts in ({form})")
            functions.append(code)
            if form == "module global":  # bound at import, after the helpers: the module keeps it
                start = code.index(f"def {prefix}_{number}(model):")
                lines += ["", "", *code[: start - 2]]
                functions[-1] = code[start:]
            if form == "caller's object":
                made = "fresh(1)" if what == "modules" else "torch.ones(3)"
                main_locals = [f"extra = {made}", 'extra.label = "extra"']
                calls.append(f"{prefix}_{number}(model, extra)")
            else:
                calls.append(f"{prefix}_{number}(model)")
            calls.append(f'look("after {prefix}_{number} ({form})")')
        if any(call.startswith("look(") for call in calls):
            functions.append(["def look(what):", f"    print(what, len({container}), {_contents(family, container)})"])

    if sequence:  # a "deque" shape is one the codemod may rewrite: none of the deque's own methods
        steps = SEQUENCE_STEPS + ((DEQUE_ONLY_STEPS if shape != "deque" else ()) if deque else LIST_ONLY_STEPS)
    else:
        steps = {"map": MAP_STEPS + MAP_OPERATORS, "set": SET_STEPS + SET_OPERATORS, "idmap": ID_STEPS,
                 "weakmap": MAP_STEPS, "weakset": SET_STEPS}[family]
    weak_operators: tuple = ()
    if weak:  # what WeakKeyDictionary and WeakSet offer as a dict and a set do (no reversed(), no set
        # operators with plain sets, no == with a dict or set, a repr of their own)
        steps = tuple(step for step in steps if re.match(r'(print\(|\{c\}\.\w+\(|\{c\}\[|for key|view =|snapshot =|plain =)', step[0])
                      and not re.search(r"reversed\(|repr\(|==|frozenset|\{c\} [-|&^]|\| \{\{|\.issubset|\.isdisjoint", step[0]))
        if equality_safe:  # their own operators, which build another weak container: the codemod must refuse
            weak_operators = tuple(step for step in (MAP_OPERATORS if family == "weakmap" else SET_OPERATORS) if re.match(r"r = \{c\} \|", step[0]))
            steps += weak_operators
    if shape == "id map":  # an id map that is emptied (pop, del, clear) is no WG005 finding, and one keyed by
        # ``id(model[2])`` is not fixed (``model[2]`` of no known kind): the shape is one the codemod fixes
        steps = tuple(step for step in steps if not step[1] and not re.search(r"\.pop\(|^del |\.clear\(", step[0]))
    if shape == "deque":  # compared, printed or added, a deque is refused (WeakIdList is a list there)
        steps = tuple(step for step in steps if not re.search(r"==|repr\(|\{c\} [+*] ", step[0]))
    if not equality_safe:
        steps = tuple(step for step in steps if not step[1] and not step[3])
    elif not lookups_safe:
        steps = tuple(step for step in steps if not step[3])
    insertable = key_expressions + (PLAIN_KEYS if plain_keys_ok else ())
    # a list compares a stranger with ``==`` (``torch.zeros(2) in [module]`` raises), WeakIdList, by design, by
    # identity: a list looks up only strangers of its elements' kind
    strangers = STRANGERS if not sequence else () if tensors else STRANGERS[:1]
    lookups = insertable + (strangers if lookups_safe else ())
    escapes = LIST_ESCAPES if sequence else ESCAPES
    # the step a forced shape starts with: what makes it that shape
    first = {"deque-only step": DEQUE_ONLY_STEPS, "map operators": MAP_OPERATORS, "set operators": SET_OPERATORS}.get(shape or "")
    for number in range(choose.integer(2, 12)):
        if number == 0 and first:
            template, needs_key, inserts, _ = choose.pick(first)
            key = choose.pick(insertable if inserts else lookups) if needs_key else ""
        elif shape is None and family in ("map", "set", "idmap", "list") and choose.integer(0, 24) == 0:  # a forced
            # shape draws no escape: what it may rewrite, the differential test expects rewritten
            template = choose.pick(escapes + (HOLDER_ESCAPES if place == "instance" else ()))
            key = choose.pick(key_expressions)
            if family == "idmap" or "id map" not in template:  # iterating an id map reads ints; any other map, keys
                refusals.append("an escape")
        elif shape is None and weak and place == "instance" and choose.integer(0, 12) == 0:
            template, key = choose.pick(HOLDER_ESCAPES), ""
            refusals.append("an escape")
        else:
            template, needs_key, inserts, _ = choose.pick(steps)
            key = choose.pick(insertable if inserts else lookups) if needs_key else ""
        if any(template == step[0] for step in DEQUE_ONLY_STEPS):
            refusals.append("a method WeakIdList lacks")
        if any(template == step[0] for step in weak_operators):
            refusals.append("a weak container's own operator")
        statement = template.format(c=container, k=key, v=choose.pick(STEP_VALUES), name=name)
        rebinds = place == "module" and re.search(rf"^{name} [-|&^+]?=", statement, re.MULTILINE)
        functions.append([
            f"def step_{number}(model):", *([f"    global {name}"] if rebinds else []), "    try:", *_indent(statement, 2),
            "    except Exception as error:", f'        print("step_{number} raised", type(error).__name__)',
        ])
        calls.append(f"step_{number}(model)")
        if choose.integer(0, 9) == 0 and equality_safe:  # a second fill between the steps
            calls.append("fill_0(model)")

    if shape is not None or choose.integer(0, 4):  # replace a submodule, collect, and look again
        index = choose.integer(0, 2)
        gone = "[old, *old.parameters(), *old.buffers()]"
        if family == "idmap":  # through annotated helpers: ``id(o)`` of an ``o`` of no known kind refuses the fix
            functions += [["def held_module(m: nn.Module) -> bool:", f"    return id(m) in {container}"],
                          ["def held_tensor(t: torch.Tensor) -> bool:", f"    return id(t) in {container}"]]
            held = "held_module(old) or any(held_tensor(t) for t in [*old.parameters(), *old.buffers()])"
        elif sequence:  # by identity: ``o in`` a list of tensors would compare them with ==
            held = f"any(x is o for x in {container} for o in {gone})"
        else:
            held = "False" if weak else f"any(o in {container} for o in {gone})"
        functions.append([
            "def drop(model):",
            f"    old = model[{index}]",
            f"    tag = \"[gc] \" if {held} else \"\"",
            f"    model[{index}] = fresh({index})",
            "    del old",
            "    gc.collect()",
            f'    print(f"{{tag}}len after the drop: {{len({container})}}")',  # a count: a walk would make it the owner
        ])
        calls.append("drop(model)")
    if main_locals:
        calls.append('print("extra", label(extra))')

    for function in functions:
        lines += ["", "", *function]
    lines += ["", "", "def main():", "    model = build()", *(f"    {line}" for line in main_locals), *(f"    {call}" for call in calls)]
    return "\n".join(lines) + "\n", refusals


# --- cache programs: lru_cache / cache on a function of a module or tensor, and on a method of a module -----
#
# ``_cache_program`` draws a module with a cached function of a module or a tensor and/or a cached method of
# ``Probe`` (an ``nn.Linear`` the model is built of), each counting its calls in ``CALLS``, then steps that
# call them (hits and misses, positional and keyword, bound ``obj.m(n)`` and unbound ``Probe.m(obj, n)``,
# ``__wrapped__``, temporaries), print ``cache_info()``, clear the caches, and finally replace a submodule
# (and maybe drop the whole model) and collect. The grammar runs ``lru_cache`` itself as it writes the calls
# (``_CacheModel``), so it knows, for every ``currsize`` it prints, whether an entry of a collected argument
# is in the cache: that line alone is tagged ``[gc]`` (the rewrite shows fewer entries); hits, misses,
# results and the call counts must be the same.

CACHE_IMPORTS = "import functools\nfrom functools import cache, lru_cache\n"

PROBE_CLASS = '''

class Probe(nn.Linear):
    {decorator}
    def scaled(self, n{annotation}):
        CALLS["scaled"] += 1
        return {value}
'''
CACHED_FUNCTION = '''

{decorator}
def describe(obj{annotation}, n=1):
    CALLS["describe"] += 1
    return {value}
'''
#: Decorators and the ``maxsize`` each gives.
CACHE_DECORATORS = (
    ("@functools.lru_cache(maxsize=1)", 1), ("@functools.lru_cache(maxsize=2)", 2), ("@functools.lru_cache(maxsize=3)", 3),
    ("@functools.lru_cache(maxsize=None)", None), ("@functools.lru_cache()", 128), ("@lru_cache", 128),
    ("@lru_cache(maxsize=2)", 2), ("@functools.cache", None), ("@cache", None),
)
#: What the cached function is of: (annotations, results, arguments owned by the model, a temporary).
CACHE_ARGUMENTS = {
    "module": ((": nn.Module", ": nn.Module", ""),
               ('f"{label(obj)}/{n}"', "type(obj).__name__ + str(n)", "sum(p.numel() for p in obj.parameters()) * n",
                "len(list(obj.children())) + n"),
               ("model[0]", "model[1]", "model[2]", "model"), "nn.Linear(1, 1)"),
    "tensor": ((": torch.Tensor", ": torch.Tensor", ""),
               ('f"{label(obj)}/{n}"', "obj.numel() * n", "tuple(obj.shape) + (n,)", "round(float(obj.detach().sum()) * n, 4)"),
               ("model[0].weight", "model[2].bias", "model[1].weight", "model[1].running_mean"), "torch.zeros(2)"),
}
PROBE_RESULTS = ('f"{label(self)}*{n}"', "self.in_features * n", "tuple(self.weight.shape) + (n,)", "round(float(self.weight.detach().sum()) * n, 4)")
PROBES = ("model[0]", "model[2]")


class _CacheModel:
    """``lru_cache`` as the grammar runs it while writing the calls: keys of symbolic arguments
    (``("model[0]", generation)``, or a temporary that dies at once), in LRU order."""

    def __init__(self, maxsize: Optional[int]) -> None:
        self.maxsize = maxsize
        self.entries: dict[tuple, None] = {}

    def call(self, key: tuple) -> None:
        if key in self.entries:
            self.entries[key] = self.entries.pop(key)  # now the most recent
            return
        self.entries[key] = None
        if self.maxsize is not None and len(self.entries) > self.maxsize:
            del self.entries[next(iter(self.entries))]

    def clear(self) -> None:
        self.entries.clear()

    def collected(self, alive) -> bool:
        """Whether an entry's argument is collected: the rewrite's ``currsize`` is then smaller."""
        return any(not alive(key[0]) for key in self.entries)


def _cache_program(choose: _Choices) -> tuple[str, list[str]]:
    """A cache program, and the reasons the codemod must refuse it (none: it may rewrite it)."""
    what = choose.pick(sorted(CACHE_ARGUMENTS))
    annotations, results, arguments, temporary = CACHE_ARGUMENTS[what]
    caches: dict[str, tuple[str, _CacheModel]] = {}  # name -> (how its cache_info is reached, model)
    # one cache per program: the [gc] tags are decided as the grammar writes the calls, and stand only if the
    # codemod rewrites every cache of the program or none
    has_method = choose.shape == "cache method" if choose.shape else choose.integer(0, 4) < 2
    refusals: list[str] = []
    has_function = not has_method
    lines = [*RUNNABLE_PREAMBLE.split("\n"), *CACHE_IMPORTS.split("\n"), "CALLS = collections.Counter()"]
    if has_method:
        decorator, maxsize = choose.pick(CACHE_DECORATORS)
        lines += PROBE_CLASS.format(decorator=decorator, annotation=choose.pick(("", ": int")), value=choose.pick(PROBE_RESULTS)).split("\n")
        caches["scaled"] = ("Probe.scaled", _CacheModel(maxsize))
    if has_function:
        decorator, maxsize = choose.pick(CACHE_DECORATORS)
        lines += CACHED_FUNCTION.format(decorator=decorator, annotation=choose.pick(annotations), value=choose.pick(results)).split("\n")
        caches["describe"] = ("describe", _CacheModel(maxsize))
    helpers = RUNNABLE_HELPERS
    if has_method:  # the model's Linear layers are Probes, so is a fresh one
        helpers = helpers.replace("nn.Linear(3, 4)", "Probe(3, 4)").replace("nn.Linear(4, 2)", "Probe(4, 2)")
    lines += helpers.split("\n")

    generation = {"model": 0, "model[0]": 0, "model[1]": 0, "model[2]": 0}
    temporaries = [0]

    def symbol(expression: str) -> tuple:
        """The object an argument expression names now: (its root, the generation of that root)."""
        if expression in (temporary, "Probe(2, 2)"):
            temporaries[0] += 1
            return ("temporary", temporaries[0])
        root = expression[:8] if expression.startswith("model[") else "model"
        return (expression, generation[root], generation["model"])

    def alive(sym: tuple) -> bool:
        if sym[0] == "temporary":
            return False
        root = sym[0][:8] if sym[0].startswith("model[") else "model"
        return sym[2] == generation["model"] and (root == "model" or sym[1] == generation[root])

    def info(name: str, when: str) -> list[str]:
        reach, model = caches[name]
        tag = "[gc] " if model.collected(alive) else ""
        return [f'print("{name} info {when}", {reach}.cache_info()[:3])',
                f'print(f"{tag}{name} currsize {when}: {{{reach}.cache_info().currsize}}")']

    def step() -> list[str]:
        """One step's statements, with the cache models run through its calls, left to right."""
        name = choose.pick(sorted(caches))
        reach, model = caches[name]
        n = choose.integer(1, 3)
        if name == "describe":
            argument = choose.pick(arguments + ((temporary,) if choose.integer(0, 5) == 0 else ()))
            forms = (
                ("call", f"describe({argument})", ()), ("call n", f"describe({argument}, {n})", (n,)),
                ("call keyword", f"describe({argument}, n={n})", (("n", n),)),
            )
        else:
            argument = choose.pick(PROBES + (("Probe(2, 2)",) if choose.integer(0, 5) == 0 else ()))
            forms = (
                ("bound", f"{argument}.scaled({n})", (n,)), ("unbound", f"Probe.scaled({argument}, {n})", (n,)),
                ("bound keyword", f"{argument}.scaled(n={n})", (("n", n),)),
            )
        shape = choose.integer(0, 19)
        if shape < 8:  # one call, or the same call twice (a miss, then a hit)
            label_, call, key = choose.pick(forms)
            twice = argument not in (temporary, "Probe(2, 2)") and choose.coin()
            model.call((symbol(argument), key))
            if twice:
                model.call((symbol(argument), key))
                return [f'print("{name} {label_} twice", {call}, {call})']
            return [f'print("{name} {label_}", {call})']
        if shape < 10:  # two forms of one call: the same entry, or two (a keyword is another key)
            (label_a, call_a, key_a), (label_b, call_b, key_b) = choose.pick(forms), choose.pick(forms)
            if argument in (temporary, "Probe(2, 2)"):
                model.call((symbol(argument), key_a))
                return [f'print("{name} {label_a}", {call_a})']
            model.call((symbol(argument), key_a))
            model.call((symbol(argument), key_b))
            return [f'print("{name} {label_a} then {label_b}", {call_a}, {call_b})']
        if shape < 12:
            return info(name, "now")
        if shape == 12:
            model.clear()
            clear = choose.pick((f"{reach}.cache_clear()", f"{PROBES[0]}.scaled.cache_clear()")) if name == "scaled" else "describe.cache_clear()"
            return [clear, f'print("{name} cleared", {reach}.cache_info())']
        if shape == 13:
            owner = argument if argument not in (temporary, "Probe(2, 2)") else arguments[0] if name == "describe" else PROBES[0]
            wrapped = f"describe.__wrapped__({owner}, {n})" if name == "describe" else f"{owner}.scaled.__wrapped__({owner}, {n})"
            return [f'print("{name} wrapped", {wrapped})']
        if shape == 14:
            return ['print("calls", sorted(CALLS.items()))']
        if shape == 15:
            return [f'print("{name} parameters", {reach}.cache_parameters(), {reach}.__name__)']
        if shape == 16 and not choose.shape and choose.integer(0, 2) == 0:  # uses the fix must refuse: the result compared with `is`,
            # the cached function handed to other code
            owner = arguments[0] if name == "describe" else PROBES[0]
            call = f"describe({owner})" if name == "describe" else f"{owner}.scaled(1)"
            model.call((symbol(owner), () if name == "describe" else (1,)))
            model.call((symbol(owner), () if name == "describe" else (1,)))
            if name == "describe" and choose.coin():
                refusals.append("the cached function handed to map()")
                return [f'print("describe mapped", list(map(describe, [{owner}, {owner}])))']
            refusals.append("a cached result compared with `is`")
            return [f'print("{name} same", {call} is {call})']
        return [*info(name, "now"), 'print("calls", sorted(CALLS.items()))']

    functions: list[list[str]] = []
    calls: list[str] = []

    def add_steps(count: int) -> None:
        for _ in range(count):
            number = len(functions)
            functions.append([f"def step_{number}(model):", "    try:", *_indent("\n".join(step()), 2),
                              "    except Exception as error:", f'        print("step_{number} raised", type(error).__name__)'])
            calls.append(f"step_{number}(model)")

    add_steps(choose.integer(3, 10))
    if choose.shape or choose.integer(0, 4):  # replace a submodule and collect: its entries go
        index = choose.integer(0, 2)
        generation[f"model[{index}]"] += 1
        drop = ["def drop(model):", f"    model[{index}] = fresh({index})", "    gc.collect()"]
        for name in sorted(caches):
            drop += _indent("\n".join(info(name, "after the drop")))
        functions.append(drop)
        calls.append("drop(model)")
        add_steps(choose.integer(0, 3))
    ending: list[str] = []
    if choose.coin():  # the model dropped whole
        generation["model"] += 1
        ending = ["del model", "gc.collect()"]
        for name in sorted(caches):
            ending += info(name, "after the model")
        ending.append('print("calls", sorted(CALLS.items()))')

    for function in functions:
        lines += ["", "", *function]
    lines += ["", "", "def main():", "    model = build()", *(f"    {call}" for call in calls), *(f"    {line}" for line in ending)]
    return "\n".join(lines) + "\n", refusals
