"""WG001-WG005 and WG007: which code a long-lived container gets, with its evidence, and the fix's edits.

The rule family of containers: a module-level or class-level container, or the state of a long-lived
instance, filled with framework objects owned elsewhere (WG001-WG003), a weak container that compares
tensors with ``==`` (WG004), an id()-keyed map never emptied (WG005), or a workspace of objects it builds
itself (WG007; ``caches.py`` reports an ``lru_cache`` of them). The codes' documentation is ``DOCS`` below;
whether the fix is safe is ``container_fix.py``'s call.
"""
from __future__ import annotations

import ast
from dataclasses import replace
from typing import Iterator, Optional

from ..analysis.evidence import Evidence, Obj, Value, argument_at, element_of, project, text
from ..analysis.fill_contents import Held, object_in_tuple, plain_data
from ..analysis.framework_types import TENSOR, compares_by_value
from ..analysis.long_lived_places import Slot
from ..analysis.recorded_uses import Definition, Fill, SlotUses
from ..analysis.release_routes import scope_of
from ..analysis.survey import KeptArgument, Survey
from ..analysis.uses import id_argument, statement_text
from ..syntax.container_expressions import ContainerType, Member, classify, holds_nothing, initial_members, root_name
from ..syntax.scopes import FUNCTIONS, FunctionNode, Scopes, every_statement, function_parameters, own_returns, walk
from . import codes
from .container_fix import FixSafety, annotation_edits, constructor_edit, runtime_class
from .findings import Edit, EditKind, Evidence as Proof, Finding, Span

#: The rule pages of WG001-WG005 and WG007, one entry per code: ``weakglobals --explain``, the SARIF rule help and
#: ``docs/rules.md`` all read them (through ``docs.py``). Markdown: an italic one-line definition, then the
#: same five bullets (why it matters, an example, the fix, what the fix changes at run time, known false
#: positives), as ruff's rule pages.
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
- **Fix**: sets become `WeakIdSet()`; lists and deques `WeakIdList()`, which keeps order and duplicates
  (a registry of layers that `append(self)`, a stack of modules pushed and popped). A list that is the only
  owner of what it holds (temporaries appended each `forward` for a loss) is left, with the reason.
- **Fix safety**: as WG001; a deque used with what `WeakIdList` lacks (`appendleft`, `maxlen`) is left too.
- **Known false positives**: work lists emptied after each use (torch's `_sparse_tensors_to_validate`: the
  tensors are pinned only until validation, or until the next load if a load raises first). A work queue,
  whose elements are taken out in turn (`popleft()`, `pop(0)`) and read no other way (`len`, `while X:`),
  is not reported here or as WG003. Nor is a registry whose contents a type check reads
  (`isinstance(child, tuple(REGISTRY))`, or a loop's element passed to `issubclass`): it holds classes,
  whatever a registering function's parameter is annotated as (`def register(module: nn.Module)`, applied as
  a class decorator in other modules).
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
- **Fix**: an unsafe fix, made only by `python -m fixes.apply --unsafe-fixes`: `StrictWeakIdMap()` /
  `StrictWeakIdSet()` (also for instance attributes, where this trap is common), `WeakIdMap` / `WeakIdSet`
  that keep the weak container's other promises. It is unsafe because it changes lookups exactly where it
  is wanted: a key with more than one element, whose lookup raised, is found, and so is a NaN scalar, which
  the original never found. A loss scaler that relied on the miss to leave a NaN loss's gradients alone
  unscales them after the fix; no analysis can show that no key is ever NaN.
- **Fix safety**: lookups stop raising; membership is by identity, which is what a tensor key means. As
  before, a key that cannot be weakly referenced raises `TypeError` (`in` says False) and `deepcopy` shares
  the keys (a module deep-copied for an EMA shadow keeps tracking the caller's tensors). Refused when the
  container is printed or compared with `==`, which it does as a dict (set) would.
- **Known false positives**: sets that only ever add each tensor once and iterate (torch's
  `fake_tensor_tls.non_strict_export_fake_tensor_tracker`): the trap is latent, the first `in` or second
  `add` of the same tensor raises.
""",
    "WG005": """\
*Long-lived dict keyed by `id(x)` or an address of framework objects (`t.data_ptr()`, also inside a tuple
key, through `int()`, a local or a helper that builds the key), with no removal in the module (a
`weakref.finalize(t, X.pop, key)` beside the fill is one), holding values that may hold objects (a map of
numbers, sizes and strings keeps nothing alive).*

- **Why it matters**: it pins the values; and CPython reuses addresses at once, so a new object of the same
  size gets a dead key's id and a stale hit (in 1,000 of 1,000 trials). DeepSpeed's
  `quantized_weight_registry` (`deepspeed/inference/quantization/layers.py`) is this shape.
- **Example**: `registry[id(weight)] = quantize(weight)` and `if id(weight) in registry: ...`;
  `_CACHE[(t.data_ptr(), tuple(t.shape), t.dtype)] = descriptor(t)`. A clear that runs only once the map has
  grown (`if len(m) > 64: m.clear()`) bounds it but never empties it, and does not count as a removal.
- **Fix**: only when every use in the module is keyed by `id(expr)` (or needs no key: `len`, `clear`,
  `values`): the keys become `expr` and the map a `WeakIdMap`. Otherwise (a compound or `data_ptr()` key,
  or `expr`'s class compares by value, here or in another module) it is reported as not fixable.
- **Fix safety**: entries vanish with their objects and a reused id can no longer hit.
- **Emptied elsewhere**: a module in the same directory that empties the map (`layers.registry.clear()`,
  `registry.pop(k)`, `del registry[k]`) counts: DeepSpeed empties `quantized_weight_registry` from
  `quantization.py`, so it is not reported. Modules further away are not read (see the architecture section).
- **Known false positives**: maps emptied from a module further away than its own directory (see **Emptied
  elsewhere**).
""",
    "WG007": """\
*Module- or class-level container, or a `functools.lru_cache`/`cache` called with plain values (or an app
server's cache, Streamlit's `st.cache_resource` and `st.cache`), that keeps the modules or tensors it
allocates itself while the program runs, for the rest of the process; also a
module-level name or class attribute, empty at import, that a function sets to a tensor it builds and
nothing sets back (`global _window; _window = torch.hann_window(n)`), and a long-lived instance's attribute
that one of its methods sets to a tensor it builds (`def setup_buffer(self, n): self.buffer = torch.empty(n,
pin_memory=True)` on a module-level manager), and a container on a long-lived instance of another project
module's class that its methods fill with tensors they allocate (`_BUFFER = GlobalMemoryBuffer()`, whose
`get_tensor` does `self.buffer[key] = torch.empty(n)`; reported at the call that makes the instance); and, in
library code, a module-level name or class attribute bound at import to modules or tensors built in that
statement (`EPS = torch.tensor(1e-6)`, `COLORS = {"white": torch.ones(3)}`, `class Task: DEFAULT_LOSS =
nn.BCELoss()`).*

- **Why it matters**: the process keeps every object it ever made there: a workspace per size and device, a
  mel filterbank or a window per device (often on the GPU), a model a loader function cached by name.
  Usually it is on purpose and small; it is still memory that nothing frees after the model that used it is
  gone (built at import, even if nothing ever uses it), and the finding says where it is.
- **Example**: `class DeepSpeedSelfAttention: _qkv_buffers = []` with `_qkv_buffers.append(torch.empty(...))`;
  a map of them under plain keys, `_cublaslt_workspaces[(device, size)] = torch.empty(size, ...)` (torch);
  `@lru_cache def mel_filters(device, n_mels: int) -> torch.Tensor` (the tensors it returns, one per
  distinct call); `@st.cache_resource def load_model(name)` in a Streamlit app (the server keeps each model
  it loads across every rerun; it hashes the arguments instead of keeping them, so only what it returns
  counts); a map whose entries it makes and fills in place (`_CONFIGS[name] = dict()`, then
  `_CONFIGS[name]["model"] = load(name)`); a cache of what torch's loaders return (`torch.load`: tensors;
  `torch.jit.load`: a model); a cache whose result one branch of an `if` builds (`if mesh == "smpl": x =
  torch.tensor(...)`, `else: x = f(mesh)`, then `return x`: it keeps whichever the call made); a map of
  per-device copies of the module's own constant (`_CACHE[device] = _VALUES.to(device)`); a memo of records
  that hold tensors (xformers' `fmha.BlockDiagonalMask.from_seqlens(seqlens)`, DINOv2's `attn_bias_cache`);
  a model library code loads at import and then moves (`model = CLIPModel.from_pretrained(...)`, then
  `model = model.to(device)`: the same model, not a second binding); a constant a factory builds from
  names the module binds on several branches (`COLORS = torch.from_numpy(table).to(device) / 255`, with
  `device` chosen under `if`/`elif`/`else`: a new tensor whichever binding it got); a memo dict handed to
  a helper of another project module that stores there what it builds (flashinfer's
  `get_w2_permute_indices_with_cache(_TRTLLM_FP8_PERMUTE_CACHE, w, 128)`), or to one of the module's own
  that stores what a builder its caller hands it returns (`_cached(_CACHE, key, lambda: torch.ones(n))`).
- **Fix**: none automatic: a weak container would drop the objects at once, and a weak cache frees nothing
  under plain keys. Free (or `cache_clear()`) the workspace when done if it is large; where the process
  is meant to keep it, say so with `# noqa: WG007`.
- **Fix safety**: not applicable; and a WG001–WG005 or WG008 container that also holds such objects is
  never rewritten, for the same reason.
- **Known false positives**: an object built by a local class whose constructor registers it elsewhere
  (the container is then not its only owner); a cached function annotated `-> Tensor` that returns
  something else (the annotation is believed). What a test module builds at import (a parametrize table;
  a module that imports pytest or unittest, defines `test_*` functions or `Test*` classes, or is named
  `test_*`, `*_test` or `conftest`, or sits in a `test`, `tests` or `testing` package) is its tests' own
  data and never WG007, and so is an example's (a module of an `example`, `examples`, `tutorials` or
  `docs` package: torch's export case table); so is what a module works with as it is imported, a tutorial
  without a `__main__` block (`model = Net()`, then `model(x)`, `torch.compile(model)` or a loop at the
  top level); and what derives from a module's own objects (`X.cuda()`, `X[0]`: `X` is reported). Nor are
  the globals of a program (a module with an `if __name__ == "__main__":` block, or one that prints or
  parses its arguments at import) and its functions' caches,
  unless its package uses it (a package's `__init__`, or a module another module of its directory or of a
  package directory around it imports: its `__main__` block is then a demo or a command). Nor is a
  workspace set back to nothing (`None`, an empty container) in a method that runs after the work that
  fills it: a test's `tearDown`, a context manager's `__exit__`, a finalizer, or a `close()` one of them
  calls (it lives as long as that object); a clean-up the user must call is no such release.
""",
    "WG008": """\
*Module-level or class-level dict whose values are modules, parameters or tensors owned elsewhere, keyed by
names, numbers or anything else that is no framework object.*

- **Why it matters**: a value pins its object as surely as a key does: a registry from names to layers
  (`REGISTRY[prefix] = self` in a layer's `__init__`) keeps every layer of every model ever built, and a
  side channel (`_STORE["kv"] = key_states`) keeps the last call's tensors until the next one.
- **Example**: `_LAYERS = {}` with `_LAYERS[name] = self` in `nn.Module.__init__`; `{name: module for name,
  module in model.named_modules()}`.
- **Fix**: an unsafe fix, made only by `python -m fixes.apply --unsafe-fixes`: the map becomes a
  `WeakValueMap`, a dict whose entry goes when its value is collected (keys, and values that are not
  identity-compared objects, are held as a dict holds them). Prefer it to `weakref.WeakValueDictionary`,
  which raises for an `int` or `str` value and prints and combines (`|`) as itself.
- **Fix safety**: a lookup by name needs no reference to the object, so after the fix it misses once the
  object's other owners let go; hence the flag. Even with it, the fix is made only where every value the map
  is filled with is a reference the code keeps: `self`, a parameter whose callers pass references, a loop's
  element over a reference's members (`for name, m in model.named_modules()`), a global bound once, an
  attribute or item of one of those (not `t.data`, a slice or an item of a tensor), or a local bound to one.
  Refused, with the reason: a value the fill builds (`Wrapper(self)`, a tuple, `t.detach()`), a caller
  that passes what nothing else keeps (`register("relu", nn.ReLU())`, `base * 2`), a self-registering class
  built and dropped (`Backend("cpu")`, `Block("x")(inputs)`, a factory's `cls(name)`), a memo
  (`_by_name.get(k) or cls(k)`), a `defaultdict`, pairs the fix cannot see (`update(other)`), another
  module that fills the map or calls its filling functions; and everything refused for WG001.
- **Not reported**: a staging map that the function filling it drains again on its normal path (a
  converter gathers one block's tensors under the block's key, then `del X[block]`, or `X.pop(i)` for each
  piece, or `X.clear()`); a removal only in an `except`, only once the map has grown (`if len(X) > N`), or
  of a key chosen from the map itself (`X.pop(next(iter(X)))`) still leaves the fills reported. Nor are
  values torch makes from no object (`torch.cuda.get_rng_state()`, a torch call with constant arguments
  only): the map is their only owner. A record built around a module handed in (a `@dataclass` or
  `NamedTuple` with a `nn.Module` field, `Replaced(original=module)`) is reported: it keeps the module.
- **Known false positives**: registries meant to keep their objects for the life of the process (a model
  zoo that should never free what it loaded): silence them with `# noqa: WG008`.
""",
}

_CONTAINER_GENERICS = frozenset(
    "Dict dict DefaultDict defaultdict OrderedDict Mapping MutableMapping Set set MutableSet AbstractSet "
    "List list Deque deque WeakKeyDictionary WeakSet".split()
)
_MAP_GENERICS = frozenset("Dict dict DefaultDict defaultdict OrderedDict Mapping MutableMapping WeakKeyDictionary".split())
_NON_INSTANCE_TYPES = frozenset(
    {"typing.Type", "builtins.type", "typing.Callable", "collections.abc.Callable"}
    | {f"builtins.{name}" for name in "str int float bool bytes complex".split()}
)


#: What a torch mode defines to answer operators itself, and the operators of ``==``.
_MODE_HANDLERS = frozenset({"__torch_dispatch__", "__torch_function__"})
_EQUALITIES = frozenset({"eq", "__eq__"})

class ContainerJudge:
    """Judges each container's uses: the code, its evidence, the message, and (if safe) the edits."""

    def __init__(self, survey: Survey, evidence: Evidence) -> None:
        self.survey = survey
        self.evidence = evidence
        self.safety = FixSafety(survey, evidence)

    def container(self, uses: SlotUses) -> Optional[Finding]:
        if "<locals>" in uses.slot.owner:
            return None  # a class defined in a function lives as long as what refers to it, not the process
        containers = [d for d in uses.definitions if d.constructor and d.constructor.type is not ContainerType.PLACEHOLDER]
        if not containers:
            return self._imported_container(uses)
        constructor = containers[0].constructor
        assert constructor is not None
        keyed = constructor.type.keyed
        if not keyed and uses.taken_in_order and not uses.out_of_turn:
            return None  # a work queue (``append``, ``popleft()``, ``len``): each element is held until its turn
        held = [Held(fill, self._value(fill, keyed), self._stored(fill) if keyed else None) for fill in self._fills(uses, containers)]
        verdict = self._rule(uses, constructor.type, held)
        if verdict is None:
            return None
        code, objects = verdict
        line, first = min(objects, key=lambda pair: pair[0])
        kinds = tuple(sorted({found.kind for _, found in objects}))
        reason = self.safety.why_not_fixable(uses, containers, held, code)
        owners, premises = self.safety.owners_proof(uses, held, code) if reason is None else ((), ())
        used = tuple(dict.fromkeys(
            f"use, line {line}: `{statement_text(statement)}`" for line, statement in sorted(uses.ledger, key=lambda use: use[0])
        )) if reason is None else ()
        primary = _primary(uses, containers)
        name = self._display(uses)
        place = {"module": "module-level", "class": "class-level", "instance": "module-level instance's"}[uses.slot.where]
        if "()." in name:  # ``Manager().items``: the one instance its metaclass keeps
            place = "singleton's"
        evidence = f"({first.cited(line)})" + self._other_holders(uses)
        return Finding(
            code=code,
            line=primary.target.lineno,
            col=primary.target.col_offset,
            name=name,
            kind=constructor.word,
            scope=uses.slot.where,
            holds=kinds,
            evidence=Proof(first.line or line, first.why),
            message=codes.container_message(code, constructor.word, place, name, kinds, evidence, _keyed_by(held)),
            fix_reason=reason,
            edits=() if reason else tuple(self._edits(uses, containers, code)),
            runtime_names=frozenset() if reason else frozenset({runtime_class(constructor.type, code)}),  # type: ignore[arg-type]
            fillers=self._fillers(uses) if code == "WG008" and not reason else (),
            proof=(*owners, *used) if reason is None else (),
            premises=premises,
            sees_what_goes=reason is None and bool(premises) and self.safety.sees_what_goes(uses, constructor.type),  # type: ignore[arg-type]
        )

    def _fillers(self, uses: SlotUses) -> tuple[str, ...]:
        """The module-level functions and classes whose code fills the container."""
        names = []
        for fill in uses.fills:
            owner = self.survey.method_owner.get(fill.function) if fill.function is not None else None
            if owner is not None:
                names.extend(info.name for info in self.survey.classes.values()
                             if owner.name in {ancestor.name for ancestor in self.survey.lineage(info)})
            elif fill.function is not None and self.survey.functions.get(fill.function.name) is fill.function:  # type: ignore[attr-defined]
                names.append(fill.function.name)  # type: ignore[attr-defined]
        return tuple(dict.fromkeys(names))

    def _imported_container(self, uses: SlotUses) -> Optional[Finding]:
        """A container of another project module filled here (``from .state import registry``;
        ``registry[param] = ...``, or under a second name: ``Other._params = Owner._params``): reported
        here, at the first fill with evidence, where a ``# noqa`` belongs. The fix belongs to the
        definition, which the codemod edits only in its own file."""
        key = uses.slot.display if uses.slot.where in ("module", "class") else None
        imported = self.survey.imported_containers.get(key) if key else None
        if imported is None or (uses.definitions and key not in self.survey.container_aliases):
            return None
        held = [Held(fill, self._value(fill, imported.type.keyed)) for fill in uses.fills if not self._undone_after_use(fill, uses)]
        foreign = [(h.fill, found) for h in held if not h.fill.id_key and (found := h.object or h.in_tuple) and found.foreign]
        if not foreign:
            return None
        fill, first = min(foreign, key=lambda pair: pair[0].line)
        place, code = _held_elsewhere(imported.name, imported.type)
        kinds = tuple(sorted({found.kind for _, found in foreign}))
        name = f"{imported.module}.{imported.name}"
        alias = f", here `{key}`" if key in self.survey.container_aliases else ""
        word = imported.type.value
        evidence = f"({first.cited(fill.line)}; defined at `{imported.module}` line {imported.line}{alias})"
        return Finding(
            code=code,
            line=fill.line,
            col=fill.member.expr.col_offset,
            name=name,
            kind=word,
            scope="module" if place == "module-level" else "class",
            holds=kinds,
            evidence=Proof(first.line or fill.line, first.why),
            message=codes.container_message(code, word, place, name, kinds, evidence),
            fix_reason=codes.defined_elsewhere(imported.module, imported.line),
        )

    def kept_argument(self, kept: KeptArgument) -> Optional[Finding]:
        """``Store.put(self)`` from a module's method, where ``Store.put`` (another project module) keeps its
        argument in a container there: reported here, at the call, where the evidence is and where a
        ``# noqa`` belongs; the definition's module cannot see who calls it."""
        keeper = kept.keeper
        found = self.evidence.of(kept.argument)
        if keeper.type is None or not isinstance(found, Obj) or not found.foreign:
            return None
        place, code = _held_elsewhere(keeper.container, keeper.type)
        name = f"{keeper.module}.{keeper.container}"
        line = kept.call.lineno
        evidence = (
            f"({found.cited(line)}, passed to `{text(kept.call.func)}` at line {line}, which keeps it; "
            f"defined at `{keeper.module}` line {keeper.line})"
        )
        return Finding(
            code=code,
            line=line,
            col=kept.call.col_offset,
            name=name,
            kind=keeper.type.value,
            scope="module" if place == "module-level" else "class",
            holds=(found.kind,),
            evidence=Proof(found.line or line, found.why),
            message=codes.container_message(code, keeper.type.value, place, name, (found.kind,), evidence),
            fix_reason=codes.defined_elsewhere(keeper.module, keeper.line),
        )

    def _rule(
        self, uses: SlotUses, container: ContainerType, held: list[Held]
    ) -> Optional[tuple[str, list[tuple[int, Obj]]]]:
        """Which code applies, with the ``(fill line, object)`` evidence for it; None when none does."""
        lasting = [h for h in held if not self._undone_after_use(h.fill, uses)]
        shows_its_use = len(lasting) < len(held)  # pushed and popped around each use: the fills say how it is used
        held = lasting
        direct = [
            (h.fill.line, _instance_state(found, h.fill), h.fill.at_import)
            for h in held if not h.fill.id_key and (found := h.object or h.in_tuple)
        ]
        filled_only_at_import = bool(held) and all(h.fill.at_import for h in held)  # the module's own table
        if filled_only_at_import and self.survey.is_a_program and uses.slot.where == "module":
            return None  # a program's top-level loop collecting its results: that run's own data, gone at exit
        if not self._rebound_by_every_instance(uses.slot) and not filled_only_at_import and not shows_its_use and not self._used_nowhere(uses.slot):
            # the annotation says what callers will put there; it describes no table the module fills itself,
            # nor a class attribute every instance replaces with its own
            direct += [(line, found, False) for line, found in self._annotated(uses.definitions)]
        direct += [(line, found, at_import) for line, found, at_import in self._consumed_as_tensors(uses, held, container)]
        if self._annotation_contradicts(uses.definitions) or (container.keyed and self._holds_classes(uses, keys=True)) or uses.read_as_types:
            direct = []  # ``Set[Type[nn.Module]]`` holds classes, whatever a filling function's parameter says
        if container in (ContainerType.WEAK_MAP, ContainerType.WEAK_SET):  # a trap whatever its lifetime
            broken = [(line, found) for line, found, _ in direct if compares_by_value(found.kind)]
            return ("WG004", broken) if broken and not self._compared_by_identity(uses.slot) else None
        if uses.slot.where == "instance" and not self.survey.holders(uses.slot.owner):
            return None  # an ordinary instance attribute dies with its instance
        if uses.released_at_zero:
            return None  # entries deleted when the last holder lets go (``if e.refcount <= 0: del X[k]``)
        foreign = [(line, found) for line, found, _ in direct if found.foreign]
        if foreign:
            code = "WG003" if uses.slot.where == "class" else ("WG001" if container.keyed else "WG002")
            return code, foreign
        if container.keyed and not self._holds_classes(uses):  # keyed by names or numbers, holding modules or tensors
            values = [
                (h.fill.line, found) for h in held
                if (found := h.stored_object) is not None and (found := _instance_state(found, h.fill)).foreign
                and (not found.built or h.fill.through_instance)
            ]
            # A map this module declares and never fills is filled by others: its annotation says what they store
            # (one whose every fill is drained again is filled here, and holds nothing past those calls).
            # Where the module fills it, the fills say what it holds: most ``dict[K, Tensor]`` maps are caches of
            # tensors they compute themselves, whatever the annotation calls them.
            # So does a class's map that instances fill through ``self`` with what the fills do not show.
            # And a map that stores what its caller hands the filling function, which no fill types (a
            # parameter, or what a factory handed in builds: ``create_fn(config)``): the annotation names it,
            # unless the module lets go of what it holds (a ``with cached():`` block that rebinds it on exit).
            lets_go = any(line not in uses.bounding_clears for line in uses.removals) or not all(d.top_level for d in uses.definitions)
            unshown = any(h.stored_object is None and (h.fill.through_instance or (not lets_go and self._handed_over(h.fill))) for h in held)
            if ((not held and not shows_its_use) or unshown) and not self._rebound_by_every_instance(uses.slot) and not self._used_nowhere(uses.slot):
                values += self._annotated_values(uses.definitions)
            if values:
                return "WG008", values
        # It holds only what it builds itself. Filled while the program runs, that is a workspace; filled at
        # import (a test module's table of parameters), or with what the module keeps anyway, it is the
        # module's own data: no finding at all.
        # A local bound to what the function built is still the function's own (``m = Net(); CACHE[k] = m``).
        workspace = [(line, found) for line, found, at_import in direct if _made_here(found) and not at_import]
        if container.keyed:  # ``_W[(n, device)] = torch.zeros(n)``: a workspace kept under plain keys
            workspace += [(h.fill.line, found) for h in held if not h.fill.at_import and (found := h.stored_object) is not None and _made_here(found)]
        if workspace and not (self.survey.ends_its_run and uses.slot.where == "module") and not self._released_on_exit(uses.definitions):
            return "WG007", workspace  # a program's own globals go when it exits (a server's stay while it serves)
        # keyed by addresses, holding only numbers and strings: nothing is kept alive (a stale hit is no pin)
        by_id = [(h.fill.line, h.object) for h in held if h.fill.id_key and h.object and not h.object.module_held]
        if by_id and all(plain_data(h.fill.member.value, self.survey.names, uses.slot.name) for h in held if h.fill.id_key):
            by_id = []
        emptied = [line for line in uses.removals if line not in uses.bounding_clears]
        never_emptied = not emptied and all(d.top_level for d in uses.definitions if d.constructor)
        if never_emptied and by_id and uses.slot.where == "module":
            never_emptied = self.survey.imported.emptied_elsewhere(uses.slot.name) is None
        if by_id and container.keyed and never_emptied:
            return "WG005", by_id  # type: ignore[return-value]
        return None

    def _consumed_as_tensors(self, uses: SlotUses, held: list[Held], container: ContainerType) -> list[tuple[int, Obj, bool]]:
        """Elements the fills do not show, of a list or set passed whole to ``torch.cat`` (``torch.stack``...):
        torch takes only tensors there, so they are tensors (``self.preds.append(preds)``, then
        ``torch.cat(self.preds)``), handed in from outside. A script's loop at import that collects what it
        computes and concatenates it is the module's own table, and stays silent."""
        if container.keyed or not uses.tensor_sequences:
            return []
        line, callee = uses.tensor_sequences[0]
        consumed = Obj(TENSOR, f"`{callee}` takes only tensors, and it is passed whole", line)
        unknown = [
            h for h in held
            if h.value is None and not h.fill.id_key and not h.fill.at_import and h.fill.member.shape == "item"
        ]
        return [(h.fill.line, consumed, False) for h in unknown]

    def _fills(self, uses: SlotUses, containers: list[Definition]) -> Iterator[Fill]:
        yield from uses.fills
        for definition in containers:
            assert definition.constructor is not None
            for member in initial_members(definition.constructor):
                inner = id_argument(member.expr, self.survey.names)
                if inner is not None:
                    yield Fill(Member(inner, member.shape, member.value), definition.target.lineno, "definition", True, definition.top_level)
                else:
                    yield Fill(member, definition.target.lineno, "definition", at_import=definition.top_level)
        if any(d.constructor and d.constructor.type is ContainerType.DEFAULT_MAP for d in containers) or any(
            self._makes_its_entries(fill) for fill in uses.fills
        ):
            yield from uses.subscript_reads

    def _makes_its_entries(self, fill: Fill) -> bool:
        """``X[k] = dict()``, then ``X[k]["model"] = model``: a map whose entries are containers its own fills
        make holds what goes into them, as a ``defaultdict`` does."""
        made = classify(fill.member.value, self.survey.names)
        return made is not None and made.type is not ContainerType.PLACEHOLDER

    def _value(self, fill: Fill, keyed: bool) -> Value:
        if fill.stored_elsewhere is not None and keyed:
            return None  # a key this module does not see
        shape = fill.member.shape
        if shape == "update":
            shape = "pairs" if keyed else "iterable"
        value = self.evidence.of(fill.member.expr) if keyed or shape != "item" else self._stored_value(fill, fill.member.expr)
        if value is None and fill.id_key and "data_ptr()" in fill.how:  # only a tensor has a data_ptr()
            value = Obj(TENSOR, f"`{text(fill.member.expr)}.data_ptr()` is its address", fill.member.expr.lineno)
        if shape == "iterable":
            return element_of(value)
        if shape == "pairs":
            return project(element_of(value), (0,))
        return value

    def _undone_after_use(self, fill: Fill, uses: SlotUses) -> bool:
        """A fill taken out again at the end of every use: in a ``finally`` of the function that makes it
        (``stack.append(m)``; ``try: ...; finally: stack.pop()``), drained later on the same function's
        normal path (a staging map), or closed by its own class (``_closed_by_its_class``). It pins nothing
        past that use."""
        function = fill.function
        if function is None:
            return False
        if function in uses.undoing or any(drained is function and line > fill.line for drained, line in uses.drains):
            return True
        return self._closed_by_its_class(function, uses)

    def _closed_by_its_class(self, method: ast.AST, uses: SlotUses) -> bool:
        """A method's fill that its class takes out again on a way out no error skips: in its ``__exit__``,
        or in a ``finally`` of one of its methods, there or through a method of its own called there
        (``finish(): try: ... finally: self._release()``). A session that registers itself while it runs,
        as a ``with`` block would: the class manages the lifetime. A removal only on a normal path, or by
        another class, is no such promise."""
        owner = self.survey.method_owner.get(method)
        if owner is None or not uses.removing:
            return False
        methods: dict[str, FunctionNode] = {}
        for cls in self.survey.lineage(owner):  # nearest first: an override hides its base's method
            for name, function in cls.methods.items():
                methods.setdefault(name, function)
        releasing = {name for name, function in methods.items() if function in uses.removing}
        return any(function in uses.undoing or _finally_calls_own(function, releasing) for function in methods.values())

    def _holds_classes(self, uses: SlotUses, keys: bool = False) -> bool:
        """``{"basic": BasicBlock, ...}``: a registry whose own definition holds classes holds classes, whatever
        a registering function's parameter is annotated as (``block_fn: nn.Module``); with ``keys``, one whose
        definition is keyed by classes is keyed by classes (``{torch.optim.SGD: DifferentiableSGD}``, filled
        with a parameter annotated ``optim_type: torch.optim.Optimizer``)."""
        for definition in uses.definitions:
            value = definition.value
            if isinstance(value, ast.Dict):
                values = value.keys if keys else value.values
            elif isinstance(value, ast.Call) and definition.constructor is not None and not keys:  # ``dict(basic=BasicBlock)``
                values = [keyword.value for keyword in value.keywords]
            else:
                continue
            if any(isinstance(v, (ast.Name, ast.Attribute)) and self._names_a_class(v) for v in values):  # type: ignore[union-attr]
                return True
        return False

    def _names_a_class(self, expr: ast.expr) -> bool:
        if isinstance(expr, ast.Name) and expr.id in self.survey.classes:
            return True
        qualified = self.survey.names.qualify(expr) if self.survey.names.is_imported(root_name(expr)) else None
        return qualified is not None and self.survey.imported.is_class(qualified)

    def _rebound_by_every_instance(self, slot: Slot) -> bool:
        """``layers: List[nn.Module] = []`` on the class, and ``self.layers = []`` in a method: each instance
        gets a list of its own, and the class-level one is never filled through ``self``."""
        info = self.survey.classes.get(slot.owner) if slot.where == "class" else None
        return info is not None and slot.name in info.self_attributes

    def _stored(self, fill: Fill) -> Value:
        """What a map's fill stores as the value: ``REGISTRY[prefix] = self``, ``{n: m for n, m in ...}``."""
        if fill.id_key:
            return None  # WG005's values are judged with its keys
        if fill.member.shape in ("pairs", "update"):
            return project(element_of(self.evidence.of(fill.member.expr)), (1,))
        return self._stored_value(fill, fill.member.value) if fill.member.value is not None and fill.member.shape == "item" else None

    def _stored_value(self, fill: Fill, value: ast.expr) -> Value:
        """What one fill stores: what another module's function stores there, as the index says; its value's
        evidence; or, in a function the container was handed to, what the builder the handing call passes
        returns (``evidence.built_by_what_was_handed``)."""
        if fill.stored_elsewhere is not None:
            return _stored_elsewhere(fill)
        found = self.evidence.of(value)
        if found is None and fill.handed_by is not None:
            found = self.evidence.built_by_what_was_handed(value, *fill.handed_by)  # type: ignore[arg-type]
        return found

    def _compared_by_identity(self, slot: Slot) -> bool:
        """Every use of the weak container runs under a dispatch or function mode of this module that answers
        ``aten.eq`` (or ``__eq__``) itself (``with OverrideEqMode(): if value in cls.offload_values``): its
        keys compare by what the mode says, identity in practice, and the trap of ``Tensor.__eq__`` is closed
        by the code's own hand."""
        mentions = self.evidence.mentions_of(slot.name, attribute=slot.where != "module")
        return bool(mentions) and all(self._under_an_eq_mode(node) for node in mentions)

    def _under_an_eq_mode(self, node: ast.AST) -> bool:
        current = self.evidence.scopes.parent(node)
        while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Module)):
            if isinstance(current, (ast.With, ast.AsyncWith)) and any(self._answers_eq(item.context_expr) for item in current.items):
                return True
            current = self.evidence.scopes.parent(current)
        return False

    def _answers_eq(self, expr: ast.expr) -> bool:
        """``IdentityEqMode()``: a class of this module whose ``__torch_dispatch__`` or ``__torch_function__``
        names an equality (``aten.eq``, ``torch.eq``, ``__eq__``, ``operator.eq``)."""
        info = self.survey.classes.get(expr.func.id) if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) else None
        if info is None:
            return False
        handlers = [method for cls in self.survey.lineage(info) for name, method in cls.methods.items() if name in _MODE_HANDLERS]
        return any(
            (isinstance(node, ast.Attribute) and node.attr in _EQUALITIES) or (isinstance(node, ast.Name) and node.id in _EQUALITIES)
            for handler in handlers for node in walk(handler)
        )

    def _released_on_exit(self, definitions: list[Definition]) -> bool:
        """The workspace is set back to nothing (``None``, an empty container) in a method a protocol runs after
        the work that fills it: a test's ``tearDown``, a context manager's ``__exit__``, a finalizer, or a
        method one of them calls on its receiver (``def __exit__(...): self.close()``, whose ``close`` does
        ``global X; X = None``). It lives as long as that object or test. A clean-up the user must call is
        no such release: that workspace is still reported."""
        released = {scope_of(self.evidence.scopes, d.target) for d in definitions if not d.top_level and holds_nothing(d.value)}
        return any(
            function.name in _RUN_ON_EXIT or any(_calls_on_receiver(caller, function.name) for caller in _exits_beside(self.evidence.scopes, function))
            for function in released if isinstance(function, FUNCTIONS)
        )

    def _used_nowhere(self, slot: Slot) -> bool:
        """A class attribute that nothing in its module reads or fills (no ``X.name`` but its definition), and
        that no other module is meant to: a ``NamedTuple``'s or a dataclass's field default, a private
        annotation left behind. Its annotation describes no table anyone fills. A public one (and a module
        global) may be filled by importers, which this module cannot see."""
        if slot.where != "class" or self.evidence.mentions_of(slot.name, attribute=True):
            return False
        owner = self.survey.classes.get(slot.owner)
        return slot.name.startswith("_") or (owner is not None and self.evidence.is_record(owner))

    def _handed_over(self, fill: Fill) -> bool:
        """Whether a map's fill stores what the filling function takes from its caller: a parameter, what a
        factory handed in builds (``create_fn(config)``), or a local any binding of which is one (``module =
        create_fn(config)`` on one branch, ``module = CACHE.get(key)`` on another). Not what the module's
        own code builds through it: a class handed to a class decorator (``cls: Type[Config]``, ``return
        cls``), or a builder every call in the module hands as a lambda (``_cached(key, lambda:
        torch.arange(n))``)."""
        function = fill.function
        if not isinstance(function, FUNCTIONS) or fill.member.value is None:
            return False
        parameters = function_parameters(function)
        position = {parameter.arg: index for index, parameter in enumerate(parameters)}
        bindings = self.evidence.scopes.bindings(function).names

        def own_builder(name: str) -> bool:
            annotation = parameters[position[name]].annotation
            named = annotation.value if isinstance(annotation, ast.Subscript) else annotation
            if named is not None and self.survey.names.qualify(named) in ("typing.Type", "builtins.type"):
                return True
            if any(isinstance(statement.value, ast.Name) and statement.value.id == name for statement in own_returns(function)):
                return True
            calls = self.evidence.calls_of(function.name)
            return bool(calls) and all(isinstance(argument_at(call, name, position[name]), ast.Lambda) for call in calls)

        def handed(value: ast.expr, seen: frozenset[str]) -> bool:
            if isinstance(value, ast.Call):
                value = value.func
                if not isinstance(value, ast.Name) or value.id not in position or own_builder(value.id):
                    return False
            if not isinstance(value, ast.Name) or value.id in seen:
                return False
            return any(
                binding.how == "parameter" or (binding.how == "value" and not binding.path and handed(binding.node, seen | {value.id}))  # type: ignore[arg-type]
                for binding in bindings.get(value.id, ())
            )

        return handed(fill.member.value, frozenset())

    def _annotated(self, definitions: list[Definition]) -> list[tuple[int, Obj]]:
        """Keys or elements named by the container's own annotation: ``Dict[nn.Module, str]``."""
        found = []
        for definition in definitions:
            value = self._annotated_member(definition.annotation)
            if isinstance(value, Obj):
                annotation = definition.annotation
                found.append((definition.target.lineno, Obj(value.kind, f"annotated `{text(annotation)}`", annotation.lineno)))  # type: ignore[arg-type,union-attr]
        return found

    def _annotated_values(self, definitions: list[Definition]) -> list[tuple[int, Obj]]:
        """Values named by a map's own annotation: ``Dict[str, nn.Module]``, ``dict[str, dict[str, Tensor]]``."""
        found = []
        for definition in definitions:
            part = self._value_annotation(_parsed(definition.annotation))
            value = self.evidence.of_annotation(part) if part is not None else None
            obj = value if isinstance(value, Obj) else object_in_tuple(value)
            if obj is not None:
                annotation = definition.annotation
                why = f"annotated `{text(annotation)}`"  # type: ignore[arg-type]
                found.append((definition.target.lineno, Obj(obj.kind, why, annotation.lineno, holds=obj.holds)))  # type: ignore[union-attr]
        return found

    def _value_annotation(self, annotation: Optional[ast.expr]) -> Optional[ast.expr]:
        """The value type a map's annotation names, through nested maps: ``Tensor`` in
        ``Optional[Dict[str, Dict[str, Tensor]]]``."""
        if not isinstance(annotation, ast.Subscript):
            return None
        generic = (self.survey.names.qualify(annotation.value) or "").rpartition(".")[2]
        parts = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        if generic in ("Optional", "ClassVar", "Final", "Union"):
            return next((value for part in parts if (value := self._value_annotation(part)) is not None), None)
        if generic not in _MAP_GENERICS or len(parts) != 2:
            return None
        return self._value_annotation(parts[1]) or parts[1]

    def _annotated_member(self, annotation: Optional[ast.expr]) -> Value:
        key = self._key_annotation(annotation)
        return self.evidence.of_annotation(key) if key is not None else None

    def _key_annotation(self, annotation: Optional[ast.expr]) -> Optional[ast.expr]:
        """The key (element) type a container's own annotation names: ``nn.Module`` in
        ``Optional[Dict[nn.Module, str]]``; None when the annotation names no container."""
        if not isinstance(annotation, ast.Subscript):
            return None
        generic = (self.survey.names.qualify(annotation.value) or "").rpartition(".")[2]
        parts = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        if generic in ("Optional", "ClassVar", "Final", "Union"):
            return next((key for part in parts if (key := self._key_annotation(part)) is not None), None)
        return parts[0] if generic in _CONTAINER_GENERICS else None

    def _annotation_contradicts(self, definitions: list[Definition]) -> bool:
        """The container's own annotation says its keys or elements are not framework instances: classes
        (``Type[nn.Module]``), strings, numbers. Its word wins over any evidence from the fills."""
        for definition in definitions:
            key = self._key_annotation(_parsed(definition.annotation))
            if key is not None and self._not_an_instance(key):
                return True
        return False

    def _not_an_instance(self, annotation: ast.expr) -> bool:
        """``Type[X]``, ``type[X]``, ``type``, ``str``, ``int``...: annotations no framework instance matches."""
        target = annotation.value if isinstance(annotation, ast.Subscript) else annotation
        qualified = self.survey.names.qualify(target) or ""
        return qualified in _NON_INSTANCE_TYPES

    def _other_holders(self, uses: SlotUses) -> str:
        """`` (also `exp_rmspe.preds`)``: the same attribute of the other long-lived instances of the class,
        each pinning what it was given (the message names the first)."""
        if uses.slot.where != "instance":
            return ""
        others = [f"`{holder}.{uses.slot.name}`" for holder in self.survey.holders(uses.slot.owner)[1:]]
        return f" (also {', '.join(others)})" if others else ""

    def _display(self, uses: SlotUses) -> str:
        slot = uses.slot
        if slot.where == "instance":
            holder = next(iter(self.survey.holders(slot.owner)), None)
            return f"{holder}.{slot.name}" if holder else f"{slot.owner}().{slot.name}"
        return slot.display

    def _edits(self, uses: SlotUses, containers: list[Definition], code: str) -> Iterator[Edit]:
        runtime = runtime_class(containers[0].constructor.type, code)  # type: ignore[union-attr]
        assert runtime is not None
        for definition in containers:
            outcome = constructor_edit(definition.constructor, runtime)  # type: ignore[arg-type]
            assert isinstance(outcome, Edit)
            yield outcome
            for member in initial_members(definition.constructor):  # type: ignore[arg-type]
                if code == "WG005" and id_argument(member.expr, self.survey.names) is not None:
                    yield Edit(EditKind.UNWRAP_ID, Span.of(member.expr), "")
        for definition in uses.definitions:
            if definition.annotation is not None:
                yield from annotation_edits(definition.annotation, runtime, self.survey.names)
        if code == "WG005":
            yield from (Edit(EditKind.UNWRAP_ID, Span.of(call), "") for call in uses.id_calls)


def _finally_calls_own(method: FunctionNode, names: set[str]) -> bool:
    """Whether a ``finally`` of ``method`` calls ``self.NAME()`` for one of ``names``."""
    parameters = function_parameters(method) if names else []
    if not parameters:
        return False
    own = parameters[0].arg
    return any(
        isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in names
        and isinstance(call.func.value, ast.Name) and call.func.value.id == own
        for node in every_statement(method.body) if getattr(node, "finalbody", None)
        for statement in node.finalbody for call in walk(statement)  # type: ignore[attr-defined]
    )


def _primary(uses: SlotUses, containers: list[Definition]) -> Definition:
    """Where to report: a global's or class attribute's own definition (even ``X = None``), else the first
    rebinding; an instance attribute where its container is built (not its class-level annotation)."""
    top = [definition for definition in uses.definitions if definition.top_level]
    candidates = containers if uses.slot.where == "instance" else top or uses.definitions
    return min(candidates, key=lambda definition: (definition.target.lineno, definition.target.col_offset))


def _parsed(annotation: Optional[ast.expr]) -> Optional[ast.expr]:
    """A string annotation (``"Set[Type[nn.Module]]"``) as the expression it spells."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            return ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    return annotation


def _keyed_by(held: list[Held]) -> str:
    """How WG005's keys are made: ``data_ptr()`` when every address-keyed fill takes a storage's address."""
    by_address = [h.fill.how for h in held if h.fill.id_key and h.object]
    return "data_ptr()" if by_address and all("data_ptr()" in how for how in by_address) else "id()"


def _stored_elsewhere(fill: Fill) -> Obj:
    """What another module's function stores into the container it is handed: built there, so the container
    is its only owner."""
    stored = fill.stored_elsewhere
    assert stored is not None
    return Obj(stored.kind, f"stored by {fill.how}: {stored.why}", fill.line, owned=True, built=True)


def _made_here(found: Obj) -> bool:
    """Built by the filling function itself, directly or through a local, and not a module-level object."""
    return found.owned or (found.built and not found.module_held)


def _instance_state(found: Obj, fill: Fill) -> Obj:
    """An object an instance builds and stores through ``self.X``, where ``X`` is a class attribute, is that
    instance's state (``self.adapters[name] = weight.to(self.device)``); but the class's one container keeps
    it for every later instance, after its own is gone. So it counts as owned elsewhere, by the instance."""
    if not fill.through_instance or not found.owned or found.module_held:
        return found
    return replace(found, owned=False, why=f"{found.why}, stored through `self` in the one container every instance shares")


def _held_elsewhere(name: str, container: ContainerType) -> tuple[str, str]:
    """Place and code of another module's container, by its name there: ``registry`` (module-level),
    ``Store._items`` (class-level, WG003) or ``Manager.get_instance().items`` (a singleton's, WG003)."""
    if "." not in name:
        return "module-level", "WG001" if container.keyed else "WG002"
    return ("singleton's" if "()." in name else "class-level"), "WG003"


#: Methods a protocol runs after the work: unittest's and pytest's per-test tear-down, a context manager's
#: exit, a finalizer.
_RUN_ON_EXIT = frozenset({"tearDown", "teardown_method", "__exit__", "__aexit__", "__del__"})


def _exits_beside(scopes: Scopes, function: FunctionNode) -> list[FunctionNode]:
    """The ``_RUN_ON_EXIT`` methods of the class that defines ``function``."""
    owner = scopes.parent(function)
    body = owner.body if isinstance(owner, ast.ClassDef) else []
    return [method for method in body if isinstance(method, FUNCTIONS) and method.name in _RUN_ON_EXIT]


def _calls_on_receiver(method: FunctionNode, name: str) -> bool:
    """``self.close()`` in ``method``, for ``name`` ``close``."""
    parameters = function_parameters(method)
    receiver = parameters[0].arg if parameters else None
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name
        and isinstance(node.func.value, ast.Name) and node.func.value.id == receiver
        for node in walk(method)
    )
