"""The rules' documentation, one entry per code: the single source of ``weakglobals --explain WG001``, of the
SARIF rule help, and of the README's ``### WG00N`` sections (``tests/test_explain.py`` checks that the README
says exactly this). Each entry is Markdown: an italic one-line definition, then the same five bullets (why it
matters, an example, the fix, what the fix changes at run time, known false positives), as ruff's rule pages.
"""
from __future__ import annotations

import re


DOCS: dict[str, str] = {
    "WG001": """\
*Module-level dict (literal, comprehension, `dict()`, `OrderedDict()`, `defaultdict(...)`, `dict.fromkeys`)
keyed by modules, parameters or tensors.*

- **Why it matters**: the dict lives as long as the module is imported and holds a strong reference to every
  key: a module or parameter replaced later (expert-parallel replacement, kernel injection, a fine-tuning
  head swap) is never freed, and neither is its gradient or optimizer state that hangs off it.
- **Example**: `module_names = {}` filled by `{module: name for name, module in model.named_modules()}`.
- **Fix**: `module_names = WeakIdMap()`, `WeakIdMap({module: name for ...})`; `defaultdict(list)` becomes
  `WeakIdMap(default_factory=list)`, `dict.fromkeys(...)` becomes `WeakIdMap.fromkeys(...)`, and annotations
  follow (`Dict[nn.Module, str]` becomes `WeakIdMap[nn.Module, str]`).
- **Fix safety**: entries now disappear when their key is collected, which is the point; everything else the
  module does with the dict is checked first (see [fix safety](#fix-safety)).
- **Known false positives**: maps that are meant to keep their keys alive for the life of the process
  (a registry of models that should never be freed): silence them with `# noqa: WG001`.
""",
    "WG002": """\
*Module-level set, list or deque holding modules, parameters or tensors.*

- **Why it matters**: as WG001, for every element.
- **Example**: `seen = set()` with `seen.add(param)`; `_models = []` with `_models.append(model)`.
- **Fix**: sets become `WeakIdSet()`; lists and deques are reported, not rewritten: they keep order and
  duplicates, which a weak set does not. Hold `weakref.ref`s, or a `WeakIdSet` if order does not matter.
- **Fix safety**: as WG001.
- **Known false positives**: work lists emptied after each use (torch's `_sparse_tensors_to_validate`: the
  tensors are pinned only until validation, or until the next load if a load raises first).
""",
    "WG003": """\
*Class-level container keyed by or holding modules, parameters or tensors* (it lives as long as the class:
in practice, the process).

- **Why it matters**: as WG001; worse, it is shared by every instance, which is rarely what was meant.
- **Example**: `class Allocator: cache = defaultdict(dict)` with `Allocator.cache[tensor][shape] = ...`.
- **Fix**: as WG001 / WG002, for the class attribute and every `cls.X = ...` / `ClassName.X = ...` rebinding.
- **Fix safety**: as WG001.
- **Known false positives**: registries meant to keep their objects for the life of the process. Workspaces
  the class allocates itself (DeepSpeed's `DeepSpeedSelfAttention._qkv_buffers`) are WG007, not WG003.
""",
    "WG004": """\
*`weakref.WeakKeyDictionary` or `weakref.WeakSet` whose keys are tensors or parameters.*

- **Why it matters**: these compare keys with `==` whenever hashes collide, and looking up a key that is in
  the map always collides with itself: `Tensor.__eq__` returns a tensor and `bool()` of it raises
  `RuntimeError: Boolean value of Tensor with more than one value is ambiguous` (a one-element tensor
  "works"; a NaN scalar silently misses). Module keys are fine there (identity `__eq__`) and never reported.
- **Example**: `grads = weakref.WeakKeyDictionary()` with `grads[tensor] = ...`.
- **Fix**: `StrictWeakIdMap()` / `StrictWeakIdSet()` (also for instance attributes, where this trap is
  common): `WeakIdMap` / `WeakIdSet` that keep the weak container's other promises.
- **Fix safety**: lookups stop raising; membership is by identity, which is what a tensor key means. As
  before, a key that cannot be weakly referenced raises `TypeError` (`in` says False) and `deepcopy` shares
  the keys (a module deep-copied for an EMA shadow keeps tracking the caller's tensors). Refused when the
  container is printed or compared with `==`, which it does as a dict (set) would.
- **Known false positives**: sets that only ever add each tensor once and iterate (torch's
  `fake_tensor_tls.non_strict_export_fake_tensor_tracker`): the trap is latent, the first `in` or second
  `add` of the same tensor raises.
""",
    "WG005": """\
*Long-lived dict keyed by `id(x)` of framework objects, with no removal in the module.*

- **Why it matters**: it pins the values; and CPython reuses addresses at once, so a new object of the same
  size gets a dead key's id and a stale hit (in 1,000 of 1,000 trials). DeepSpeed's
  `quantized_weight_registry` (`deepspeed/inference/quantization/layers.py`) is this shape.
- **Example**: `registry[id(weight)] = quantize(weight)` and `if id(weight) in registry: ...`.
- **Fix**: only when every use in the module is keyed by `id(expr)` (or needs no key: `len`, `clear`,
  `values`): the keys become `expr` and the map a `WeakIdMap`. Otherwise it is reported as not fixable.
- **Fix safety**: entries vanish with their objects and a reused id can no longer hit.
- **Emptied elsewhere**: a module in the same directory that empties the map (`layers.registry.clear()`,
  `registry.pop(k)`, `del registry[k]`) counts: DeepSpeed empties `quantized_weight_registry` from
  `quantization.py`, so it is not reported. Modules further away are not read (see the architecture section).
- **Known false positives**: maps emptied from a module further away than its own directory (see **Emptied
  elsewhere**).
""",
    "WG006": """\
*`functools.lru_cache` / `functools.cache` (also `lru_cache(None)`, `lru_cache()`, stacked under other
decorators) on a function that takes modules or tensors, or on a method of an `nn.Module` subclass.*

- **Why it matters**: the cache is a process-wide dict with strong keys: every `self` (every module) or
  tensor argument stays alive. On `forward` of a rotary-embedding module it is the most common pinning idiom;
  Megatron-LM calls `forward.cache_clear()` with a comment that the cache otherwise leaks memory.
- **Example**: `@functools.cache def assert_and_get_unique_device(module: torch.nn.Module)` (torch).
- **Fix**: `@functools.lru_cache(maxsize=N)` becomes `@weak_lru_cache(maxsize=N)` and `@functools.cache`
  `@weak_cache`, from [the runtime](#the-runtime) (every spelling: bare, called, `lru_cache(None)`,
  imported by name; stacked decorators stay), on methods of `nn.Module` subclasses and on functions, static
  and class methods. A method of another class cached on framework arguments (DeepSpeed's
  `PartitionedParameterCoordinator.__params_to_release(self, submodule_to_release: Module, step_id)`) gets
  `@weak_shared_lru_cache` / `@weak_shared_cache`: a per-instance cache would keep the submodules as long
  as the coordinator. Left as is, with the reason: a method whose class defines `__eq__` or `__hash__`
  (lru_cache shares entries between equal instances); an argument that is a tuple of framework objects
  (no weak reference); a result compared with `is`; the cached function or its
  `cache_info` passed, stored or returned; an attribute the replacement lacks (`__self__`, `__func__`); a
  coroutine function; a function cached through the project's own wrapper of `lru_cache` (the fix belongs
  in the wrapper).
- **Fix safety**: results, hits, `cache_info()`, `cache_clear()`, `cache_parameters()`, `__wrapped__` and
  `typed` are kept. What changes: on a method each instance has its own cache, so `maxsize` counts per
  instance and the entries go with the instance (`Class.method.cache_clear()` still clears them all); on a
  function (and with the shared forms, on a method) an entry goes when its module, parameter or tensor
  argument (or `self`) is collected, and a new object never hits an old entry.
- **Known false positives**: `lru_cache(maxsize=1)` on objects that live as long as the process anyway.

**Beside flake8-bugbear's B019** (`cached-instance-method`): B019 flags `functools.cache` / `lru_cache` on
every method, so a cached method of an `nn.Module` subclass gets both B019 and WG006, on the same line and
column (`# noqa: B019, WG006` silences both). What WG006 adds: it is torch-aware (it fires only when the
cache keys are modules or tensors, so `@cache` on a method of a plain class that takes strings stays
quiet); it covers functions as well as methods (torch's `assert_and_get_unique_device(module)` is a
function, which B019 never sees); and it comes with a fix (see **Fix** above), where B019 and pylint's
W1518 only report. `tests/test_neighbours.py` runs both plugins on such a file.
""",
    "WG007": """\
*Module- or class-level container of modules or tensors that it allocates itself* (off by default).

- **Why it matters**: usually it does not: the container is the objects' only owner, so nothing outlives
  its use because of it. It lives for the whole process, which matters when it is large.
- **Example**: `class DeepSpeedSelfAttention: _qkv_buffers = []` with `_qkv_buffers.append(torch.empty(...))`.
- **Fix**: none automatic: a weak container would drop the objects at once. Free the workspace when done.
- **Fix safety**: not applicable; and a WG001–WG005 container that also holds such objects is never
  rewritten, for the same reason.
- **Known false positives**: an object built by a local class whose constructor registers it elsewhere
  (the container is then not its only owner); select WG007 to see such containers at all.
""",
}

_README_LINK = re.compile(r"\[([^\]]+)\]\(#[^)]+\)")


def title(code: str) -> str:
    """The entry's definition in plain words: its first paragraph without Markdown emphasis."""
    first = DOCS[code].split("\n\n", 1)[0]
    return " ".join(first.replace("*", "").replace("`", "").split())


def explanation(code: str) -> str:
    """What ``--explain`` prints: the entry as Markdown (as ``ruff rule`` does), with the README's links to its
    own sections reduced to their words, since a terminal cannot follow them."""
    return f"{code} (flake8-weakglobals)\n\n" + _README_LINK.sub(r"\1", DOCS[code])
