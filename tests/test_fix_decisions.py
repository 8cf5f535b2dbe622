"""Which findings the codemod may fix: every use the runtime honours is fixed, every escape is refused with
its reason. The differential tests (``test_differential.py``) prove the same by running programs; these
say in one line each which use decides."""
from __future__ import annotations

import ast

import pytest

from flake8_weakglobals.rules.analyze_module import analyze

HEAD = (
    "import collections, copy, json, pickle\nfrom collections import OrderedDict\nfrom typing import Mapping\n"
    "import torch\nfrom torch import nn\nnames = {}\n"
)


def decide(body: str, head: str = HEAD) -> tuple[str, ...]:
    """``(code, fix_reason)`` of the one finding on ``names`` in ``head + body``."""
    source = head + body
    findings = [finding for finding in analyze(ast.parse(source), source) if finding.name == "names"]
    assert len(findings) == 1, findings
    return findings[0].code, findings[0].fix_reason or ""


FILL = "def fill(model: nn.Module):\n    for name, p in model.named_parameters():\n        names[p] = name\n"


@pytest.mark.parametrize(
    "use",
    [
        "def g(model: nn.Module):\n    names.update([(p, n) for n, p in model.named_parameters()])\n",
        "def g(p: nn.Parameter):\n    names.update([(p, 'x')])\n",
        "def g(p: nn.Parameter):\n    names[p] = p.grad\n",
        "def g(p: nn.Parameter):\n    names[p] = p.data\n",
        "def g(p: nn.Parameter):\n    names[p] = p.detach()\n",
        "def g(p: nn.Parameter):\n    names[p] = p.detach().clone()\n",
        "def g(p: nn.Parameter):\n    names[p] = p.tolist()\n",
        "def g(p: nn.Parameter):\n    names[p] = p.grad.norm()\n",
        "def g(p: nn.Parameter):\n    names[p] = p.dtype.itemsize\n",
        "def g(m: nn.Module):\n    names[m] = m.register_forward_hook(print)\n",
        "def g(other: dict):\n    other.update(names)\n",
        "def g():\n    return isinstance(names, collections.abc.Mapping) and isinstance(names, Mapping)\n",
        "def g():\n    return sorted(names.values()), list(reversed(names)), dict(names), len(names), {**names}\n",
        "def g():\n    if names and not names:\n        print(f'{names}', names == {})\n",
        "def helper(d, m):\n    d[m] = 1\n    return len(d)\ndef g(m: nn.Module):\n    helper(names, m)\n",
        "def helper(d):\n    return helper(d)\ndef g():\n    helper(d=names)\n",
        "def g():\n    return len(copy.copy(names)), sorted(names.copy().values())\n",
        "def g(m: nn.Module):\n    shallow = copy.copy(names)\n    shallow[m] = 'x'\n    return shallow[m], len(shallow)\n",
        "def g(m: nn.Module):\n    names[m] = m.weight\n    names[m] = m.bias\n",
        "def g(p: nn.Parameter):\n    names[p] = p.new_zeros(p.shape)\n",
        "def put(m: nn.Module):\n    names[m] = 1\ndef g():\n    layer = nn.ReLU()\n    put(layer)\n    return layer\n",
        "MODEL = nn.Linear(1, 1)\ndef get():\n    return MODEL\ndef g():\n    for p in get().parameters():\n        names[p] = 1\n",
        "class Registry:\n    @staticmethod\n    def add(name: str, m: nn.Module):\n        names[m] = name\nkept = nn.ReLU()\nRegistry.add(str(1), kept)\n",
        "def g(m: nn.Module):\n    names[m] = m.state_dict()\n",
        "def g():\n    return 'names: {}'.format(names)\n",
        "def g(m: nn.Module):\n    match names:\n        case {}:\n            return len(names)\n        case _:\n            return 0\n",
        "def merge(d):\n    return d | {}\ndef g():\n    return merge(names), {} | names\n",
        "def g():\n    return isinstance(names, (dict, collections.abc.Mapping)), isinstance(names, (OrderedDict, Mapping))\n",
        "def g():\n    total = {}\n    total |= names\n    return total\n",
        "import itertools\ndef g():\n    return list(itertools.islice(itertools.chain(names, ()), 2))\n",
        # the number's branch is no use of the map: the check that rules it out answers the same after the fix
        "def scale(table, m):\n    if isinstance(table, (dict, Mapping)):\n        return table.get(m, 1.0)\n    return float(table)\n"
        "def g(m: nn.Module):\n    return scale(names, m), scale(0.5, m)\n",
        # a layer's sizes and settings are numbers: a value read from them refers nowhere back to the key
        "def g(m: nn.Linear):\n    names[m] = (m.in_features, m.out_features)\n",
    ],
)
def test_uses_the_runtime_honours_are_fixed(use: str) -> None:
    assert decide(FILL + use) == ("WG001", "")


@pytest.mark.parametrize(
    "use, reason",
    [
        ("alias = names\n", "aliased as `alias`"),
        ("def get():\n    return names\n", "returned to callers"),
        ("def g():\n    if (n := names):\n        pass\n", "aliased as `n` by a walrus"),
        ("saved = [names]\n", "stored in another container"),
        ("def g(m: nn.Module):\n    return dict.get(names, m)\n", "`dict.get()` is called on it"),
        ("def g():\n    match names:\n        case dict():\n            pass\n", "matched by a `match` statement"),
        ("def dump(d):\n    return pickle.dumps(d)\ndef g():\n    dump(names)\n", "in `dump()`, where it is `d`, it is serialized"),
        ("def check(d):\n    return isinstance(d, dict)\ndef g():\n    check(names)\n", "in `check()`, where it is `d`, its type is checked"),
        # a builtin no abstract type of the tuple covers decides the check; a left operand of any type may be no dict
        ("def g():\n    return isinstance(names, (dict, collections.abc.Set))\n", "its type is checked"),
        ("def g(total):\n    total |= names\n", "`total |= names`"),
        ("def scale(table, m):\n    if isinstance(table, (dict, Mapping)):\n        x = table.get(m, 1.0)\n    return float(table)\n"
         "def g(m: nn.Module):\n    return scale(names, m)\n", "it is passed to `float()`"),
        # a check the map fails (it is no Set) sends it down the rest of the function
        ("def scale(table, m):\n    if isinstance(table, collections.abc.Set):\n        return len(table)\n    return float(table)\n"
         "def g(m: nn.Module):\n    return scale(names, m)\n", "it is passed to `float()`"),
        ("def g():\n    total = {}\n    total = set()\n    total |= names\n", "`total |= names`"),
        ("def g():\n    return copy.deepcopy(names)\n", "deep-copied"),
        ("def g(model: nn.Module):\n    return copy.deepcopy((model, names))\n", "deep-copied together with"),
        ("def g(m: nn.Module):\n    remember = names.setdefault\n    remember(m, 1)\n", "taken as a value"),
        ("def g():\n    return json.dumps(names or {})\n", "serialized with `json.dumps()`"),
        ("def g():\n    return type(names)\n", "its type is read"),
        ("def g(p: nn.Parameter):\n    names[p] = p.view(-1)\n", "refers to its own key (`p.view(-1)`"),
        ("def g(p: nn.Parameter):\n    names[p] = p[0]\n", "refers to its own key (`p[0]`"),
        ("def g(p: nn.Parameter):\n    names[p] = p.T\n", "refers to its own key (`p.T`"),
        ("def g(p: nn.Parameter):\n    names[p] = p.clone()\n", "refers to its own key (`p.clone()`"),
        ("def g(p: nn.Parameter):\n    names[p] = p.norm()\n", "refers to its own key (`p.norm()`"),
        ("def g(p: nn.Parameter):\n    names[p] = lambda: p\n", "refers to its own key (`lambda: p`"),
        ("def g(p: nn.Parameter):\n    names[p] = (p, 1)\n", "refers to its own key (`p`"),
        ("def g(m: nn.Linear):\n    names[m] = m.forward\n", "refers to its own key (`m.forward`"),
        ("other = names = {}\n", "bound together with `other`"),
        ("def g():\n    return copy.copy(names)\n", "its copy `copy.copy(names)` is no plain container either, and it is returned"),
        ("def g():\n    snapshot = names.copy()\n    torch.save(snapshot, 'f')\n", "its copy `names.copy()` is no plain container either, and it is serialized"),
        ("snapshot = names.copy()\n", "its copy `names.copy()` is no plain container either, and it is aliased as `snapshot`"),
        ("def g(m: nn.Module):\n    snapshot = names.copy()\n    snapshot |= {}\n", "and it is aliased as `snapshot`"),
        ("def hook(m, i, out):\n    names[out] = 1\nnn.Linear(1, 1).register_forward_hook(hook)\n", "keyed by `out` (line 11), from an argument of a hook registered with `register_forward_hook`"),
        ("def hook(m, i, out):\n    names[out[0]] = 1\nnn.LSTM(1, 1).register_forward_hook(hook)\n", "keyed by `out[0]` (line 11), from an argument of a hook"),
        ("def g(t: torch.Tensor):\n    t.register_hook(lambda grad: names.update({grad: 1}))\n", "keyed by `grad`"),
        (
            "class Registry:\n    def add(self, m: nn.Module):\n        names[m] = 1\nregistry = Registry()\nregistry.add(nn.GELU())\n",
            "keyed by `m` (line 12), from `nn.GELU()`, which the call at line 14 builds right there",
        ),
        (
            "class Registry:\n    @classmethod\n    def add(cls, m: nn.Module):\n        names[m] = 1\nRegistry.add(nn.GELU())\n",
            "from `nn.GELU()`, which the call at line 14 builds right there",
        ),
        (
            "class Registry:\n    @staticmethod\n    def add(name: str, m: nn.Module):\n        names[m] = name\nRegistry.add(str(1), nn.ReLU())\n",
            "from `nn.ReLU()`, which the call at line 14 builds right there",
        ),
        (
            "def make():\n    return nn.Linear(1, 1)\ndef g():\n    for p in make().parameters():\n        names[p] = 1\n",
            "from `make().parameters()`, line 14), which nothing else refers to",
        ),
        ("def reset():\n    return [v for v in globals().values() if isinstance(v, dict)]\n", "reads its globals whole with `globals()` (line 11)"),
        ("def reset():\n    return vars()\n", "reads its globals whole with `vars()`"),
        (
            "def index(model: nn.Module):\n    for m in model.modules():\n        names[m] = 1\nindex(nn.Sequential(nn.ReLU()))\n",
            "keyed by `m` (line 12), from `nn.Sequential(nn.ReLU())`, which the call at line 13 builds right there",
        ),
        ("def put(m: nn.Module):\n    names[m] = 1\nput(nn.ReLU())\n", "keyed by `m` (line 11), from `nn.ReLU()`, which the call at line 12 builds right there"),
    ],
)
def test_escapes_are_refused_with_their_reason(use: str, reason: str) -> None:
    code, why = decide(FILL + use)
    assert code == "WG001" and reason in why, why


def test_an_ordered_dict_compared_with_eq_or_printed_is_refused() -> None:
    head = HEAD.replace("names = {}", "names = OrderedDict()")
    assert "order-sensitive" in decide(FILL + "def g():\n    return names == OrderedDict()\n", head)[1]
    assert "an OrderedDict prints as one" in decide(FILL + "def g():\n    print(names)\n", head)[1]
    assert "an OrderedDict prints as one" in decide(FILL + "def g():\n    return f'{names}'\n", head)[1]
    # found by the generated programs: OrderedDict | defaultdict(int) is an OrderedDict, WeakIdMap's a defaultdict
    assert "builds an OrderedDict" in decide(FILL + "def g():\n    return names | collections.defaultdict(int)\n", head)[1]
    assert decide(FILL + "def g():\n    return len(names)\n", head) == ("WG001", "")


@pytest.mark.parametrize(
    "use, reason",
    [
        ("def own(model):\n    names[copy.deepcopy(model[1])] = 1\n", "the result of `copy.deepcopy(model[1])`"),
        ("def own(model):\n    names[copy.copy(model)] = 1\n", "the result of `copy.copy(model)`"),
        (
            "def own(model):\n    replica = copy.deepcopy(model[2])\n    replica.label = 'r'\n    names[replica] = 1\n"
            "def main(model):\n    own(model)\n",
            "a local `replica` (built by `copy.deepcopy(model[2])`)",
        ),
        ("def make():\n    return nn.Linear(2, 2)\ndef own():\n    names[make()] = 1\n", "returned by `make`, built by `nn.Linear(...)`, line 13), which nothing else"),
    ],
    ids=["deepcopy of an unknown kind", "copy", "copy in a local", "factory of this module"],
)
def test_copies_and_factory_results_the_container_alone_keeps_are_refused(use: str, reason: str) -> None:
    """Found by the generated programs: ``copy.deepcopy(model[1])`` (``model[1]`` of no known kind) and the
    result of ``def make(): return nn.Linear(2, 2)`` were rewritten, and the weak map dropped them at once."""
    code, why = decide(FILL + use)
    assert code == "WG001" and reason in why, why


def test_a_factory_that_returns_what_the_module_keeps_is_fixed() -> None:
    use = "SPARE = nn.Linear(2, 2)\ndef get():\n    return SPARE\ndef own():\n    names[get()] = 1\n"
    assert decide(FILL + use) == ("WG001", "")


def test_a_deque_compared_printed_or_added_is_refused() -> None:
    """A deque equals no list, prints as ``deque([...])`` and its ``d + d`` is a deque; WeakIdList is a list
    in all three (found by the generated programs: ``d == list(d)`` printed False, then True)."""
    head = HEAD.replace("names = {}", "names = collections.deque()")
    fill = "def fill(model: nn.Module):\n    for m in model.modules():\n        names.append(m)\n"
    assert "a deque equals no list" in decide(fill + "def g():\n    return names == list(names)\n", head)[1]
    assert "a deque prints as one" in decide(fill + "def g():\n    print(repr(names))\n", head)[1]
    assert "build deques" in decide(fill + "def g():\n    return len(names + names)\n", head)[1]
    assert decide(fill + "def g():\n    return len(names)\n", head) == ("WG002", "")


def test_what_a_weak_container_builds_as_itself_refuses_its_fix() -> None:
    """``WeakKeyDictionary | d`` and ``WeakSet.union`` build another weak container; the Strict fixes build a
    plain dict or set, which keeps keys alive and prints differently."""
    head = HEAD.replace("names = {}", "import weakref\nnames = weakref.WeakKeyDictionary()")
    fill = "def fill(t: torch.Tensor):\n    names[t] = 1\n"
    assert decide(fill, head) == ("WG004", "")
    assert "it builds a new container (line 10), which is another WeakKeyDictionary" in decide(fill + "merged = names | {}\n", head)[1]
    assert "`names.values()` is used other than by iterating it at once (line 10)" in decide(fill + "first = next(names.values())\n", head)[1]
    assert decide(fill + "def g():\n    return [v for v in names.values()], sorted(names.items())\n", head) == ("WG004", "")
    head = HEAD.replace("names = {}", "import weakref\nnames = weakref.WeakSet()")
    fill = "def fill(t: torch.Tensor):\n    names.add(t)\n"
    assert "which is another WeakSet" in decide(fill + "def g(ts):\n    return len(names.union(ts))\n", head)[1]


def test_a_defaultdict_without_a_factory_is_refused_only_when_printed() -> None:
    head = HEAD.replace("names = {}", "names = collections.defaultdict()")
    assert decide(FILL + "def g():\n    return len(names)\n", head) == ("WG001", "")
    assert "without a default factory (line 6), printed (line 11)" in decide(FILL + "def g():\n    print(names)\n", head)[1]
    head = HEAD.replace("names = {}", "names = collections.defaultdict(None)")
    assert "without a default factory" in decide(FILL + "def g():\n    return repr(names)\n", head)[1]


def test_an_instance_read_whole_takes_its_container_along() -> None:
    head = HEAD + (
        "class Registry:\n    def __init__(self):\n        self.table = {}\n"
        "    def add(self, m: nn.Module):\n        self.table[m] = 1\n"
    )
    tail = "registry = Registry()\n"

    def reason(source: str) -> str:
        return next(f for f in analyze(ast.parse(source), source) if f.name == "registry.table").fix_reason or ""

    assert reason(head + tail) == ""
    dump = "    def dump(self):\n        return {k: type(v) for k, v in self.__dict__.items()}\n"
    assert "`Registry.dump` reads its instance whole with `self.__dict__`" in reason(head + dump + tail)
    state = "    def state(self):\n        return vars(self)\n"
    assert "with `vars(self)`" in reason(head + state + tail)
    assert "read whole as `registry.__dict__`" in reason(head + tail + "def g():\n    return registry.__dict__\n")


def test_a_class_read_whole_takes_its_class_attribute_along() -> None:
    head = HEAD + "class Caches:\n    names = {}\n    @classmethod\n    def put(cls, m: nn.Module):\n        cls.names[m] = 1\n"

    def reason(extra: str) -> str:
        source = head + extra
        found = [f for f in analyze(ast.parse(source), source) if f.name == "Caches.names"]
        return found[0].fix_reason or ""

    assert reason("") == ""
    assert "`Caches` is read whole with `vars(cls)` (line 14)" in reason("    @classmethod\n    def every(cls):\n        return vars(cls)\n")
    assert "`Caches` is read whole as `Caches.__dict__`" in reason("print(Caches.__dict__)\n")
    assert "with `inspect.getmembers(Caches)`" in reason("import inspect\nprint(inspect.getmembers(Caches))\n")
    assert reason("def g(c):\n    return vars(c)\n") == ""  # another object's namespace


def test_a_module_with_its_own_weak_id_map_is_refused() -> None:
    head = HEAD + "from mylib.weak import WeakIdMap\n"
    assert "already imports its own `WeakIdMap` (from `mylib.weak`)" in decide(FILL, head)[1]
    assert decide(FILL, HEAD + "from flake8_weakglobals.runtime import WeakIdMap\n") == ("WG001", "")


def test_an_id_keyed_map_is_fixed_only_when_every_key_is_a_framework_object() -> None:
    fill = "def put(w: nn.Parameter, scale):\n    names[id(w)] = scale\n"
    assert decide(fill + "def has(w: nn.Parameter):\n    return id(w) in names\n") == ("WG005", "")
    why = decide(fill + "def has(lin: nn.Linear):\n    return id(lin.bias) in names\n")[1]
    assert "keyed by `id(lin.bias)` at line" in why


def test_nested_classes_of_the_same_name_are_different_classes() -> None:
    source = (
        "from torch import nn\n"
        "class A:\n    class Meta:\n        cache = {}\n"
        "        @classmethod\n        def put(cls, m: nn.Module):\n            cls.cache[m] = 1\n"
        "class B:\n    class Meta:\n        cache = {}\n"
        "        @classmethod\n        def put(cls, key: str):\n            cls.cache[key] = 1\n"
    )
    findings = analyze(ast.parse(source), source)
    assert [(finding.line, finding.name) for finding in findings] == [(4, "A.Meta.cache")]
    assert [edit.span.line for edit in findings[0].edits] == [4]


def test_objects_built_where_the_container_is_filled_are_never_dropped_by_a_fix() -> None:
    """A dict of temporaries would be empty at once as a WeakIdMap: a workspace is WG007, never fixed, and
    a real pin that also holds such objects is left as is."""
    head = HEAD.replace("names = {}", "names = {nn.ReLU(): 'relu'}")
    code, why = decide(FILL, head)
    assert code == "WG001" and "built where it is filled (built by `nn.ReLU(...)`" in why
    code, why = decide("def scratch():\n    names.append(torch.empty(8))\n", HEAD.replace("names = {}", "names = []"))
    assert code == "WG007" and "a weak container would drop them at once" in why


def test_a_data_ptr_key_is_id_like_and_never_unwrapped() -> None:
    """``x.data_ptr()`` is an address as ``id(x)`` is (WG005 when never emptied), but views share it: the
    key is not the object, so the codemod must not turn it into one."""
    code, reason = decide("def g(t: torch.Tensor):\n    names[t.data_ptr()] = t.sum()\n")
    assert code == "WG005"
    assert reason == "it is keyed by `t.data_ptr()`, which every view of the storage shares (line 8)"


@pytest.mark.parametrize(
    "fill",
    [
        "def g(name: str, m: nn.Module):\n    names[name] = m\n",
        "class Block(nn.Module):\n    def __init__(self, prefix: str):\n        super().__init__()\n        names[prefix] = self\n",
        "def g(model: nn.Module):\n    for n, m in model.named_modules():\n        names[n] = m\n",
        "def g(model: nn.Module):\n    for n, p in model.named_parameters():\n        names[n] = p\n    names[0] = 'a name is held as a dict holds it'\n",
        "def g(m: nn.Module):\n    kept = m\n    names['m'] = kept\n",
        "def g(model: nn.Module):\n    names.update({n: m for n, m in model.named_modules()})\n",
    ],
)
def test_a_registry_of_values_owned_elsewhere_becomes_a_weak_value_map(fill: str) -> None:
    source = HEAD + fill
    finding = next(f for f in analyze(ast.parse(source), source) if f.name == "names")
    assert (finding.code, finding.fix_reason, finding.runtime_names) == ("WG008", None, frozenset({"WeakValueMap"}))


@pytest.mark.parametrize(
    ("fill", "reason"),
    [
        ("def g(name: str, m: nn.Module):\n    names[name] = (m, name)\n", "cannot be weakly referenced"),
        ("def g(name: str, m: nn.Module):\n    names[name] = m\ng('relu', nn.ReLU())\n", "`g('relu', nn.ReLU())` (line 9) passes `nn.ReLU()`"),
        (
            "class Backend(nn.Module):\n    def __init__(self, name: str):\n        super().__init__()\n        names[name] = self\n"
            "Backend('cpu')\n",
            "`Backend('cpu')` (line 11) builds one that nothing else keeps",
        ),
        (
            "class Base(nn.Module):\n    def __init__(self, name: str):\n        super().__init__()\n        names[name] = self\n"
            "class Cpu(Base):\n    pass\nCpu('cpu')\n",
            "`Cpu('cpu')` (line 13) builds one that nothing else keeps",
        ),
        ("def g(name: str, m: nn.Module):\n    names[name] = m\n    names[name + '!'] = copy.deepcopy(m)\n", "which the fill builds"),
        ("def g(name: str, m: nn.Module):\n    names[name] = m\n    spare = make(m)\n    names[name + '!'] = spare\n", "a local bound to `make(m)`"),
        ("def g(name: str, m: nn.Module, other: dict):\n    names[name] = m\n    names.update(other)\n", "whose values the fix cannot see"),
        ("names = collections.defaultdict(lambda: None)\ndef g(name: str, m: nn.Module):\n    names[name] = m\n", "it is a defaultdict"),
        ("def g(name: str, m: nn.Module):\n    names[name] = m\n    return copy.deepcopy(names)\n", "it is deep-copied"),
        ("def g(name: str, m: nn.Module):\n    names[name] = m.forward\n", "a new bound method on every read of `.forward`"),
    ],
)
def test_a_registry_that_may_own_its_values_is_refused_with_the_reason(fill: str, reason: str) -> None:
    code, why = decide(fill)
    assert code == "WG008" and reason in why, why


def test_a_binary_search_list_is_fixed_and_its_inserts_are_fills() -> None:
    """``bisect.insort`` reads the list by index and fills it through ``insert``, which WeakIdList provides:
    fixed where what it inserts has an owner, and refused, as any fill, where it builds what it inserts."""
    head = "import bisect\n" + HEAD.replace("names = {}", "names = []")
    search = "\ndef find(n: int):\n    return bisect.bisect_left(names, n, key=lambda t: t.numel())\n"
    kept = "def order(model: nn.Module):\n    for p in model.parameters():\n        bisect.insort(names, p, key=lambda t: t.numel())\n"
    assert decide(kept + search, head) == ("WG002", "")
    code, why = decide(kept.replace("insort(names, p,", "insort(names, p.detach().clone(),") + search, head)
    assert code == "WG002" and why, "an insert of a new tensor must be a fill whose owner is checked"


@pytest.mark.parametrize(
    ("fill", "reason"),
    [
        (
            "def step(model: nn.Module, x: torch.Tensor):\n    try:\n        model(x)\n    except RuntimeError as error:\n"
            "        names.add(error)\n",
            "no owner is shown for `error`",
        ),
        ("def keep(model: nn.Module):\n    names.add(model.forward)\n", "built where it is filled (`model.forward` binds the module"),
    ],
)
def test_what_holds_a_module_one_step_removed_is_reported_and_never_held_weakly(fill: str, reason: str) -> None:
    """A caught exception (its traceback keeps the frame's model) and a bound method (a new object on each
    read, holding its module) pin what they hold; a weak set would drop them at once, since nothing else
    refers to them: the exception's only owner is its handler's name, the bound method's the read that made it."""
    code, why = decide(fill, HEAD.replace("names = {}", "names = set()"))
    assert code == "WG002" and reason in why, why
