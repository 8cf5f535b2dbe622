"""Is this expression a module, a parameter or a tensor? A small abstract interpreter over the ``ast``.

Values are ``Obj`` (a framework object, with the reason we know), ``Seq`` (an iterable of them), ``Tup``
(a tuple, as yielded by ``named_parameters()``) or None (unknown: never reported).
"""
from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Iterator, Optional, Union

from ..index.summaries import MODEL_WORDS, MODULE_METHODS_RETURNING_SELF, TENSOR_ONLY_METHODS, TYPE_VARIABLES, filled_element, named, parameters_kept, prepared_in_a_chain, treated_as_modules, treated_as_tensors
from ..syntax.container_expressions import ContainerType, classify, initial_members
from ..syntax.mentions import Mentions
from ..syntax.qualified_names import CASTS, Names, is_record
from ..syntax.scopes import FUNCTIONS, Binding, FunctionNode, Scopes, function_parameters, own_returns, reaching_value, returned_function, walk
from ..syntax.type_guards import conjuncts, guarded_attributes, guarded_types
from .framework_types import BOUND_METHOD, EXCEPTION, ITERATION_METHODS, MODULE, MODULE_METHODS, PARAMETER, TENSOR, Vocabulary, describe, tensor_results, tensor_valued
from .survey import ClassInfo, SlotStore, Survey, is_cls


@dataclass(frozen=True)
class Obj:
    kind: str
    #: What shows it, in words, without a line number: ``built by `torch.randn(...)` ``. Messages cite it
    #: as ``{why} at line {line}``, so the line is always the one the words describe.
    why: str
    #: The line of what shows it (the constructor call, the parameter, the annotation, the iteration);
    #: 0 when only the fill itself shows it.
    line: int = 0
    #: Built right here by a constructor or a tensor factory: the container that keeps it is its only owner,
    #: so nothing outlives its use because of the container (a workspace, a test's fixtures), and a weak
    #: container would drop it at once.
    owned: bool = False
    #: Held by the module's own namespace for the life of the module: bound at import to a module-level name
    #: that nothing rebinds (``X = torch.randn(4)``), or computed at import from such objects (``X[0]``,
    #: ``X.t()``, ``X + 1``, ``torch.cat([X, X])``). A container of them pins nothing the module does not
    #: keep anyway: a test module's table of its own tensors is no leak.
    module_held: bool = False
    #: For an object that is no framework object itself but holds some (a trainer with its model): what it
    #: holds, in words (``Trainer` holds nn.Module objects (`self.model`, line 12)``)
    holds: str = ""
    #: Computed from tensors owned elsewhere (``torch.softmax(hidden)``, ``loss.detach()``, ``x[0]``): built
    #: right here, so the container is its only owner, yet it keeps what it came from alive, through its
    #: autograd graph or the storage a view shares
    from_foreign: bool = False
    #: Constructed by this module's own code (a constructor or a factory), even once a local variable holds
    #: it (``disowned``): nothing outside the module ever owned it
    built: bool = False
    #: For a framework container (``nn.Sequential``, ``nn.ModuleList``, ``nn.ParameterList``): the kind of
    #: what iterating or indexing it yields (``for layer in model``, ``model[0]``)
    iterates: str = ""

    @property
    def foreign(self) -> bool:
        """What a long-lived container of it keeps alive past its owner's use: an object owned elsewhere, or
        one computed from such objects."""
        return (not self.owned and not self.module_held) or self.from_foreign

    def cited(self, fallback_line: int) -> str:
        """``built by `torch.randn(...)` at line 5``: the words with the line they describe, then what a
        holder holds."""
        return f"{self.why} at line {self.line or fallback_line}" + (f"; {self.holds}" if self.holds else "")


@dataclass(frozen=True)
class Seq:
    element: Value


@dataclass(frozen=True)
class Tup:
    items: tuple[Value, ...]


Value = Union[Obj, Seq, Tup, None]


@dataclass(frozen=True)
class Hook:
    """A function registered as a hook: its parameter at ``position`` receives a framework object."""

    position: int
    kind: str
    line: int
    registrar: str
    call: ast.Call = field(compare=False)  # the registration: ``model.register_forward_hook(hook)``


def element_of(value: Value) -> Value:
    if isinstance(value, Seq):
        return value.element
    if isinstance(value, Tup):
        return same(value.items)
    if isinstance(value, Obj) and value.iterates:  # a layer of a Sequential: owned as the Sequential is
        why = f"an element of a {'module container' if value.kind == MODULE else 'framework container'}, {value.why}"
        return Obj(value.iterates, why, value.line, owned=value.owned, module_held=value.module_held, built=value.built)
    return None


def disowned(value: Value) -> Value:
    """An object built and bound to a variable is no temporary: the variable owns it while it is used."""
    return _marked(value, lambda obj: replace(obj, owned=False, built=True) if obj.owned else obj)


def _holds_an_object(value: Value) -> bool:
    if isinstance(value, Obj):
        return True
    if isinstance(value, Seq):
        return _holds_an_object(value.element)
    return isinstance(value, Tup) and any(_holds_an_object(item) for item in value.items)


def held_by_module(value: Value) -> Value:
    """What a module-level name bound at import holds: the module keeps it for its whole life."""
    return _marked(value, lambda obj: replace(obj, owned=False, module_held=True))


def _marked(value: Value, mark: Callable[[Obj], Obj]) -> Value:
    if isinstance(value, Obj):
        return mark(value)
    if isinstance(value, Seq):
        return Seq(_marked(value.element, mark))
    if isinstance(value, Tup):
        return Tup(tuple(_marked(item, mark) for item in value.items))
    return value


def project(value: Value, path: tuple[int, ...]) -> Value:
    """The item at ``path`` of an unpacked value: a tuple's own item, or any element of a sequence
    (``tensor, _ = torch.broadcast_tensors(...)``)."""
    for index in path:
        if isinstance(value, Seq):
            value = value.element
        elif isinstance(value, Tup) and index < len(value.items):
            value = value.items[index]
        else:
            return None
    return value


def same(values: Iterable[Value]) -> Value:
    """The value all of ``values`` agree on (objects agree on their kind), else None."""
    collected = []
    for value in values:  # the first unknown settles it: the rest need not be worked out
        if value is None:
            return None
        collected.append(value)
    values = collected
    if not values:
        return None
    first = values[0]
    if all(value == first for value in values):
        return first
    if all(isinstance(value, Obj) and value.kind == first.kind for value in values):  # type: ignore[union-attr]
        # one object owned elsewhere is enough for a pin; else one the container builds (a workspace)
        return next((v for v in values if v.foreign), next((v for v in values if v.owned), first))  # type: ignore[union-attr]
    return None


def text(node: ast.AST, limit: int = 60) -> str:
    """Source-like text for messages, shortened. An expression nested deeper than ``ast.unparse`` can
    recurse (a sum of 600 terms) is named, not shown: the analysis of the file goes on."""
    try:
        written = ast.unparse(node)
    except RecursionError:
        return "(an expression nested too deeply to show)"
    return written if len(written) <= limit else written[: limit - 3] + "..."


_TENSOR_KINDS = frozenset({TENSOR, PARAMETER})
_STUB_TENSOR_FUNCTIONS, _STUB_TENSOR_METHODS = tensor_valued()
#: What returns a tensor when applied to one (for a tensor owned elsewhere, only these make evidence):
#: methods, attributes, and ``torch`` functions (``torch.nn.functional`` all return tensors). torch's stubs
#: declare most (``tensor_valued``); these are the ones torch writes in Python, outside the stubs.
_TENSOR_METHODS = _STUB_TENSOR_METHODS | {"norm"}
#: torch functions (and tensor methods) whose result is a sequence of tensors computed from their operands:
#: ``tensor, _ = torch.broadcast_tensors(tensor, torch.empty(shape))`` binds a tensor
_TENSOR_SEQUENCE_FUNCTIONS = frozenset(
    "broadcast_tensors split chunk unbind tensor_split hsplit vsplit dsplit meshgrid sort topk".split()
)
#: torch functions that copy their operands into a new tensor, which keeps nothing of them alive:
#: ``torch.cat(feature_banks)`` of tensors owned elsewhere is the caller's own tensor
_COPYING_FUNCTIONS = frozenset(f"torch.{name}" for name in "cat concat concatenate stack hstack vstack".split())
_TENSOR_ATTRIBUTES = frozenset("T mT H mH data grad real imag".split())
#: Tensor methods whose result shares its receiver's storage (or is the receiver): a view of a tensor the
#: module keeps adds no memory of its own.
_VIEW_METHODS = frozenset(
    "view view_as reshape reshape_as expand expand_as permute transpose t narrow select unsqueeze squeeze "
    "detach flatten unflatten as_strided diagonal movedim moveaxis swapaxes unfold contiguous requires_grad_".split()
)


def _a_view(node: ast.expr) -> bool:
    """``X[0]``, ``X.T``, ``X.view(...)``: what shares the storage of the tensor it is taken from."""
    if isinstance(node, (ast.Subscript, ast.Attribute)):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _VIEW_METHODS


def _in_place(method: str) -> bool:
    """``t.share_memory_()``, ``t.zero_()``, ``t.requires_grad_()``: torch's in-place methods end in one
    underscore and return the tensor they change."""
    return method.endswith("_") and not method.endswith("__") and method[:1] != "_"
_TENSOR_FUNCTIONS = _STUB_TENSOR_FUNCTIONS | {"torch.einsum", "torch.where"}
#: torch functions that return a tuple of tensors they compute (``U, S, V = torch.svd(a)``), from the stubs
_TENSOR_RESULTS = tensor_results()
#: einops' functions return a tensor of what they are handed, rearranged (a view where they can be) or reduced
_EINOPS_FUNCTIONS = frozenset(f"einops.{name}" for name in ("rearrange", "repeat", "reduce"))
_TYPING_SEQUENCES = {
    "List", "Sequence", "MutableSequence", "Iterable", "Iterator", "Collection", "Set", "FrozenSet",
    "AbstractSet", "MutableSet", "Deque", "Generator", "list", "set", "frozenset", "deque",
}
_TYPING_MODULES = ("typing.", "typing_extensions.", "collections.abc.", "collections.", "builtins.")
#: torch layers whose ``__init__`` makes ``self.weight`` and ``self.bias`` parameters: a subclass's methods
#: read them without assigning them
_INHERITED_PARAMETERS = frozenset({"weight", "bias"})
#: The decorators that make a method static or a class method: what it returns is still what it builds
_UNBINDING = frozenset({"staticmethod", "classmethod"})
#: Conversions only tensors have (modules have ``float``, ``half`` and ``double`` too): whatever the receiver
#: is, their result is a tensor
_TENSOR_ONLY_CASTS = frozenset({"long", "int", "bool", "byte", "short", "char"})
#: Containers whose elements a method puts in one by one (weak ones drop theirs; ``defaultdict`` makes them)
_FILLED_LATER = frozenset({ContainerType.MAP, ContainerType.SET, ContainerType.SEQUENCE})
_MAPS = frozenset({ContainerType.MAP})
_LAYERS_WITH_PARAMETERS = frozenset(
    f"torch.nn.{name}"
    for name in (
        "Linear Bilinear LazyLinear Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d Embedding "
        "EmbeddingBag LayerNorm GroupNorm RMSNorm BatchNorm1d BatchNorm2d BatchNorm3d InstanceNorm1d InstanceNorm2d "
        "InstanceNorm3d"
    ).split()
)
#: Framework containers that yield their elements when iterated or indexed (a ModuleDict yields its keys)
_FRAMEWORK_SEQUENCES = {"torch.nn.Sequential": MODULE, "torch.nn.ModuleList": MODULE, "torch.nn.ParameterList": PARAMETER}
_PASS_THROUGH = {"list", "tuple", "sorted", "reversed", "iter", "set", "frozenset"}


def _given_no_object(call: ast.Call) -> bool:
    """A call whose arguments are all constants (``f()``, ``f(0, dtype=None)``, ``f((2, 3))``)."""
    arguments = [*call.args, *(keyword.value for keyword in call.keywords)]
    return all(
        isinstance(node, (ast.Constant, ast.Tuple, ast.List, ast.UnaryOp, ast.unaryop, ast.expr_context, ast.Load))
        for argument in arguments for node in walk(argument)
    )


def _typing_name(qualified: Optional[str]) -> Optional[str]:
    if qualified and qualified.startswith(_TYPING_MODULES):
        return qualified.rpartition(".")[2]
    return None


#: Comparisons a tensor answers element by element, with a tensor of booleans (``is`` and ``in`` answer a bool)
_ELEMENTWISE = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)


def _elementwise(compare: ast.Compare) -> bool:
    """One comparison of that kind, not against ``None`` (``t == None`` is ``False``); a chain (``a < b < c``)
    joins its parts with ``and``."""
    other = compare.comparators[0]
    return len(compare.ops) == 1 and isinstance(compare.ops[0], _ELEMENTWISE) and not (isinstance(other, ast.Constant) and other.value is None)


class Evidence:
    """Answers ``of(expr)`` for the expressions of one module; results depend on bindings, hooks and types."""

    def __init__(self, scopes: Scopes, survey: Survey, vocabulary: Vocabulary, hooks: dict[ast.AST, Hook], mentions: Mentions) -> None:
        self.scopes = scopes
        self.source = mentions.source
        self.survey = survey
        self.names: Names = survey.names
        self.vocabulary = vocabulary
        self.hooks = hooks
        self._active: set[tuple[ast.AST, str]] = set()
        self._assumed: dict[tuple[ast.AST, str], Value] = {}  # a name's value while a binding made from it is read
        #: How many times a question was cut short because it was already being asked (a cycle): a value
        #: worked out without a cut is the same whoever asks, so it is kept (``_of_name``).
        self._cuts = 0
        self._bound: dict[tuple[ast.AST, str], Value] = {}  # ``_of_name``: what a scope's bindings of a name agree on
        self._calls: dict[tuple[str, bool], list[ast.Call]] = {}
        self._held: dict[tuple[ast.AST, str], Optional[str]] = {}
        self._made: dict[ast.AST, Value] = {}  # what a function of the module builds and returns
        self._by_use: dict[tuple[ast.AST, bool], dict[str, tuple[str, int]]] = {}  # ``_modules_by_use``
        self._tensors_by_use: dict[ast.AST, dict[str, tuple[str, int]]] = {}  # ``_tensor_by_use``
        self._record_items: dict[ast.AST, dict[str, list[ast.expr]]] = {}  # ``_filled_record``
        self._aliasing: set[str] = set()  # the type aliases being read through
        self._mentions = mentions  # shared by the module's passes: each word is searched for once

    def calls_of(self, name: str, method: bool = False) -> list[ast.Call]:
        """Calls of the module-level function ``name`` (with ``method``: calls ``X.name(...)`` on any
        receiver), found in the statements whose text makes them, at any depth (a walk of the whole module per
        file cost more than the rest of the analysis)."""
        if (name, method) not in self._calls:
            lines = self._mentions.words([name], then=r"\s*\(")  # ``X.name(`` too: the walk tells them apart
            nodes = self.scopes.index_parts(self.scopes.module, functools.partial(Mentions.within, lines))
            self._calls[(name, method)] = [node for node in nodes if type(node) is ast.Call and _calls(node, name, method)]  # type: ignore[misc]
        return self._calls[(name, method)]

    def mentions_of(self, name: str, attribute: bool = False) -> list[ast.expr]:
        """Every read of the name ``name`` (with ``attribute``: of ``X.name``, any ``X``), found in the
        statements whose text spells it, as ``calls_of`` finds calls."""
        lines = self._mentions.words([name])
        nodes = self.scopes.index_parts(self.scopes.module, functools.partial(Mentions.within, lines))
        if attribute:
            return [node for node in nodes if type(node) is ast.Attribute and node.attr == name and isinstance(node.ctx, ast.Load)]  # type: ignore[attr-defined,misc]
        return [node for node in nodes if type(node) is ast.Name and node.id == name and isinstance(node.ctx, ast.Load)]  # type: ignore[attr-defined,misc]

    def _assigned_to_self(self, owner: ClassInfo, attribute: str) -> list[ast.expr]:
        """Values assigned to ``self.<attribute>`` in the methods of ``owner`` and of its local bases."""
        values = []
        for node, receiver in self._naming_self(owner, attribute):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(is_attribute_of(target, receiver, attribute) for target in targets):
                    values.append(node.value)
        return values

    def _filled_on_self(self, owner: ClassInfo, attribute: str) -> Value:
        """``self.tokens = []``, then ``self.tokens.append(torch.tensor(ids))`` in a method: a container the
        instance starts empty holds what the class's methods put in it, as a module-level one does. Only
        when they all agree; the instance's, so never owned by whoever reads an element."""
        elements = []
        for node, receiver in self._naming_self(owner, attribute):
            filled = filled_element(node)
            if filled is not None and is_attribute_of(filled[0], receiver, attribute):
                elements.append(filled[1])
        element = same(self.of(element) for element in elements)
        if not isinstance(element, Obj):
            return None
        line = element.line or elements[0].lineno
        why = f"`self.{attribute}` is filled with what is {element.why} (line {line})"
        return Seq(Obj(element.kind, why, line, holds=element.holds, iterates=element.iterates))

    def _naming_self(self, owner: ClassInfo, attribute: str) -> Iterator[tuple[ast.AST, str]]:
        """The nodes of the methods of ``owner`` and of its local bases that may name ``attribute``, each with
        its method's receiver (``self``)."""
        named = self._mentions.words([attribute])
        for info in self.survey.lineage(owner):
            for method in info.methods.values():
                parameters = function_parameters(method)
                if method in self.survey.unbound_methods or not parameters or not Mentions.within(named, method):
                    continue
                for node in self.scopes.index_parts(method, functools.partial(Mentions.within, named)):
                    yield node, parameters[0].arg

    # --- expressions -------------------------------------------------------------------------------

    def of(self, expr: ast.AST) -> Value:
        if isinstance(expr, ast.Name):
            return self._of_name(expr)
        if isinstance(expr, ast.Call):
            return self._of_call(expr)
        if isinstance(expr, ast.Subscript):
            base = self.of(expr.value)
            index = expr.slice
            if isinstance(index, ast.Constant) and isinstance(index.value, str) and isinstance(base, Obj) and base.kind in _TENSOR_KINDS:
                return None  # ``torch.load(path)["labels"]``: no tensor takes a string index, so what was loaded is a record of unknown items
            if isinstance(index, ast.Constant) and isinstance(index.value, int) and not (isinstance(base, Obj) and not base.iterates):
                return project(base, (index.value,)) if isinstance(base, Tup) else element_of(base)
            if isinstance(base, Seq):
                return element_of(base)
            if isinstance(base, Obj) and base.iterates:  # ``blocks[:-1]`` is a Sequential too; ``blocks[i]`` a layer
                return base if isinstance(index, ast.Slice) else element_of(base)
            return self._derived([base], expr)  # ``X[0]``, ``X[1:]``: a view of the tensor
        if isinstance(expr, ast.Tuple):
            if any(isinstance(element, ast.Starred) for element in expr.elts):
                return None
            return Tup(tuple(self.of(element) for element in expr.elts))
        if isinstance(expr, ast.Dict) and expr.values and None not in expr.keys and not _indexed_by_position(expr):
            # a record built in place (``{"lengths": x, "mask": m}``): it holds what its values hold; one of
            # plain values (a table of options) holds nothing
            items = tuple(self.of(value) for value in expr.values)
            return Tup(items) if any(item is not None for item in items) else None
        if isinstance(expr, (ast.List, ast.Set)):
            return Seq(same(self.of(element) for element in expr.elts))
        if isinstance(expr, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return Seq(self.of(expr.elt))
        if isinstance(expr, ast.DictComp):  # ``{d: torch.tensor(ids[d]) for d in names}``: holds its values, as a display does
            value = self.of(expr.value)
            return Tup((value,)) if value is not None else None
        if isinstance(expr, ast.IfExp):
            return same((self.of(expr.body), self.of(expr.orelse)))
        if isinstance(expr, ast.NamedExpr):
            return self.of(expr.value)
        if isinstance(expr, ast.BinOp):
            return self._derived([self.of(expr.left), self.of(expr.right)], expr)
        if isinstance(expr, ast.UnaryOp):
            return self._derived([self.of(expr.operand)], expr)
        if isinstance(expr, ast.Compare) and _elementwise(expr):
            return self._derived([self.of(expr.left), self.of(expr.comparators[0])], expr)  # ``(i - j).abs() <= k``: a mask
        if isinstance(expr, ast.Attribute):
            found = self._of_self_attribute(expr)
            if found is not None:
                return found
            receiver = self.of(expr.value)
            if isinstance(receiver, Obj) and receiver.kind == MODULE and expr.attr in MODULE_METHODS:
                # made by this very access, so the container is its only owner; it holds the module
                return Obj(
                    BOUND_METHOD, f"`{text(expr)}` binds the module, {receiver.why}", receiver.line, owned=True,
                    from_foreign=receiver.foreign, module_held=receiver.module_held,
                )
            return self._derived([receiver], expr, expr.attr in _TENSOR_ATTRIBUTES)  # ``X.T``, ``X.data``
        return None

    def _derived(self, operands: list[Value], node: ast.expr, tensor_valued: bool = True) -> Value:
        """A tensor computed from tensors (a view, ``.to()``, arithmetic, ``torch.cat``). From the module's own
        tensors it is the module's too, whatever the operation (a wrong guess only silences). Otherwise only
        an operation known to return a tensor (``tensor_valued``) makes one: from the container's own tensors,
        the container's; from a tensor owned elsewhere, one the container owns alone but which keeps its
        inputs alive (``from_foreign``)."""
        objects = [element_of(value) if isinstance(value, Seq) else value for value in operands]
        found = [value for value in objects if isinstance(value, Obj)]
        if not found or any(obj.kind not in _TENSOR_KINDS for obj in found):
            return None
        why = f"computed as `{text(node)}`"
        if any(obj.foreign and not obj.built for obj in found):
            return Obj(TENSOR, why, node.lineno, owned=True, from_foreign=True) if tensor_valued else None
        if any(obj.module_held for obj in found):
            if tensor_valued and not _a_view(node) and self._at_run_time(node):
                # ``_VALUES.to(device)`` in a function: a new tensor made from the module's, on each call
                return Obj(TENSOR, why, node.lineno, owned=True)
            return Obj(TENSOR, why, node.lineno, module_held=True)  # the module's own, or a view of it
        return Obj(TENSOR, why, node.lineno, owned=True) if tensor_valued else None

    def _at_run_time(self, node: ast.AST) -> bool:
        """Whether ``node`` runs when a function or lambda is called, not once as the module is imported."""
        return any(isinstance(scope, (*FUNCTIONS, ast.Lambda)) for scope in self.scopes.chain(node))

    def _of_self_attribute(self, attribute: ast.Attribute) -> Value:
        """``self.module`` in a method: what the class's methods assign to it (``self.module = module``,
        ``self.proj = nn.Linear(...)``). Another object's attribute, so never owned by the container."""
        owner = self._bound_owner(attribute)
        if owner is None:
            return None
        key = (owner.node, attribute.attr)
        if key in self._active:
            self._cuts += 1
            return None
        self._active.add(key)
        try:
            assigned = self._assigned_to_self(owner, attribute.attr)
            if assigned and all(self._starts_empty(value) for value in assigned):  # what ``[]`` says is nothing
                found = self._filled_on_self(owner, attribute.attr)
            else:
                found = same([self.of(value) for value in assigned]) if assigned else None
        finally:
            self._active.discard(key)
        if isinstance(found, Obj):
            return Obj(found.kind, f"`self.{attribute.attr}` is assigned {found.why}", found.line, holds=found.holds, iterates=found.iterates)
        if not assigned and attribute.attr in _INHERITED_PARAMETERS:
            base = self._parameter_base(owner)
            if base is not None:
                return Obj(PARAMETER, f"`self.{attribute.attr}`, a parameter `{base}` makes", attribute.lineno)
        if found is None:
            for info in self.survey.lineage(owner):
                for method in (m for m in info.methods.values() if m not in self.survey.unbound_methods):
                    used = self._modules_by_use(method, self_attributes=True).get(attribute.attr)
                    if used:
                        return Obj(MODULE, f"`self.{attribute.attr}.{used[0]}()` is called", used[1])
        return disowned(found)

    def _parameter_base(self, owner: ClassInfo) -> Optional[str]:
        """The torch layer among this class's bases (``class Tagged(nn.Linear)``) whose ``__init__`` makes
        ``self.weight`` and ``self.bias`` parameters, as written."""
        for info in self.survey.lineage(owner):
            for base in info.node.bases:
                if self.names.qualify(base) in _LAYERS_WITH_PARAMETERS:
                    return text(base)
        return None

    def _bound_owner(self, attribute: ast.Attribute) -> Optional[ClassInfo]:
        if not isinstance(attribute.value, ast.Name):
            return None
        resolved = self.scopes.resolve(attribute.value.id, attribute)
        if resolved is None or not isinstance(resolved[0], FUNCTIONS):
            return None
        function = resolved[0]
        owner = self.survey.method_owner.get(function)
        parameters = function_parameters(function)
        if owner is None or function in self.survey.unbound_methods or not parameters:
            return None
        if parameters[0].arg != attribute.value.id or any(b.how != "parameter" for b in resolved[1]):
            return None
        return owner

    def _of_name(self, name: ast.Name) -> Value:
        resolved = self.scopes.resolve(name.id, name)
        if resolved is None:
            return None
        scope, bindings = resolved
        key = (scope, name.id)
        if key in self._bound:
            found = self._bound[key]
        elif key in self._active:  # ``x = x + 1`` and friends: what the other bindings agree on, if they do
            self._cuts += 1
            return self._assumed.get(key)
        else:
            found = self._agreed(key, bindings)
        if found is not None and scope is self.scopes.module and name.id not in self.survey.global_names:
            return held_by_module(found)  # bound at import and never replaced: the module keeps it for good
        if found is None and len(bindings) > 1 and isinstance(scope, FUNCTIONS):
            reaching = reaching_value(self.scopes, name, scope)  # the bindings disagree: the one that reaches here
            found = self.of(reaching) if reaching is not None else None
        if found is None and isinstance(scope, FUNCTIONS):
            if all(binding.how == "value" for binding in bindings):
                found = self.prepared_as_model(scope, name.id)
            if found is None and all(binding.how in ("value", "element") for binding in bindings):
                found = self._tensor_by_use(scope, name.id, built=all(binding.how == "value" for binding in bindings))
        return found if found is not None else self._narrowed(name, scope)

    def _agreed(self, key: tuple[ast.AST, str], bindings: list[Binding]) -> Value:
        """What every binding of a name in its scope makes it, kept when no cycle was cut on the way: a
        script that rebinds ``data``, ``loader`` and ``answers`` once per dataset, each from the others,
        asked every combination again (34 s for one file)."""
        scope, name = key
        cuts = self._cuts
        self._active.add(key)
        try:
            values = [self._of_binding(scope, binding, name) for binding in bindings]
            found = same(values)
            known = same(value for value in values if value is not None) if found is None and len(bindings) > 1 else None
            if known is not None:  # ``t = torch.empty(n)`` then ``t = t.share_memory_()``: again, with ``t`` known
                self._assumed[key] = known
                found = same(known if self._read_back(binding) else self._of_binding(scope, binding, name) for binding in bindings)
                del self._assumed[key]
        finally:
            self._active.discard(key)
        if self._cuts == cuts:
            self._bound[key] = found
        return found

    def prepared_as_model(self, function: FunctionNode, name: str) -> Optional[Obj]:
        """``model = registry.build(cfg)``, then ``model.load_state_dict(sd)`` and ``model.eval().to(device)``:
        a name the function binds from calls nothing here can type (a local, or a global it declares), and
        treats as a module. It is the function's own, as what a constructor builds is (a container it goes
        into is its keeper)."""
        used = self._modules_by_use(function).get(name)
        return Obj(MODULE, f"`{name}.{used[0]}()` is called", used[1], owned=True, built=True) if used else None

    def _modules_by_use(self, function: FunctionNode, self_attributes: bool = False) -> dict[str, tuple[str, int]]:
        """The names (or, for ``self_attributes``, the ``self.X`` attributes) ``function`` treats as modules
        (``summaries.treated_as_modules``), read once per function and kind."""
        key = (function, self_attributes)
        if key not in self._by_use:
            if not Mentions.within(self._mentions.words(MODEL_WORDS), function):
                self._by_use[key] = {}  # the text never names one of the methods: no walk
            else:
                parameters = function_parameters(function)
                owner = parameters[0].arg if parameters else None
                receiver = (lambda r: r.attr if isinstance(r, ast.Attribute) and isinstance(r.value, ast.Name) and r.value.id == owner else None) if self_attributes else named
                self._by_use[key] = treated_as_modules(function, receiver)
        return self._by_use[key]

    def _tensor_by_use(self, function: FunctionNode, name: str, built: bool = False) -> Optional[Obj]:
        """``for p in group["params"]: p.register_post_accumulate_grad_hook(hook)``: a local or parameter
        that nothing here can type, and that the function calls a method only tensors have on, is a tensor.
        An element of what something else holds, or a parameter, is not the function's own; a result of
        the function's own calls (``t = alloc(n)``, ``built``) is, as a model it loads is."""
        if function not in self._tensors_by_use:
            mentioned = Mentions.within(self._mentions.words(TENSOR_ONLY_METHODS), function)
            self._tensors_by_use[function] = treated_as_tensors(function) if mentioned else {}  # no walk where no method is named
        used = self._tensors_by_use[function].get(name)
        if used is None:
            return None
        why = f"`{name}.{used[0]}()`, a method only tensors have, is called"
        return Obj(TENSOR, f"`{name}` comes from a call here and {why}" if built else why, used[1], owned=built, built=built)

    def _read_back(self, binding: Binding) -> bool:
        """``m = CACHE[key]`` or ``m = CACHE.get(key)`` beside ``m = Net()`` (a memo: ``m = CACHE.get(key); if
        m is None: m = Net(); CACHE[key] = m``): an entry of a module-level container, read back, is what the
        other bindings say the name is, as ``x = x + 1`` is."""
        node = binding.node
        if binding.how != "value" or binding.path:
            return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and 1 <= len(node.args) <= 2:
            container = node.func.value  # ``CACHE.get(key)``, ``CACHE.get(key, None)``
        elif isinstance(node, ast.Subscript):
            container = node.value
        else:
            return False
        if not isinstance(container, ast.Name):
            return False
        resolved = self.scopes.resolve(container.id, container)
        return resolved is not None and resolved[0] is self.scopes.module

    def _bound_at_import(self, expr: ast.expr) -> bool:
        """``model`` in a script's ``model.parameters()``: a module-level name no function rebinds holds what
        it names for the life of the module, whatever its type (``model = build(opt)``, then wrapped in
        ``nn.DataParallel(model)`` at import): what it yields is the module's own."""
        if not isinstance(expr, ast.Name) or expr.id in self.survey.global_names:
            return False
        resolved = self.scopes.resolve(expr.id, expr)
        return resolved is not None and resolved[0] is self.scopes.module

    def _narrowed(self, name: ast.Name, scope: ast.AST, admitted: bool = False) -> Value:
        """``if isinstance(m, Block): cache.append(m)``: inside the ``if``, ``m`` is a ``Block``. With
        ``admitted``, a test of several types says what ``m`` may be: the one framework kind among them
        (``isinstance(data, (torch.Tensor, np.ndarray))``), enough to say what an instance may hold, never
        to prove what a key is."""
        child, current = name, self.scopes.parent(name)
        while current is not None:
            guards = [current.test] if isinstance(current, ast.If) and child in current.body else []
            block = next((b for b in _blocks(current) if child in b), None) if isinstance(child, ast.stmt) else None
            if block is not None:  # ``assert isinstance(m, Block)`` earlier in the same block
                guards += [s.test for s in block[: block.index(child)] if isinstance(s, ast.Assert)]  # type: ignore[arg-type]
            for guard in guards:
                for test in conjuncts(guard):
                    kind = self._isinstance_kind(test, name.id, admitted)
                    if kind is not None:
                        return Obj(kind, f"narrowed by `{text(test)}`", test.lineno)
            if current is scope:
                return None
            child, current = current, self.scopes.parent(current)
        return None

    def _isinstance_kind(self, test: ast.expr, name: str, admitted: bool = False) -> Optional[str]:
        if not (
            isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and self.names.qualify(test.func) == "builtins.isinstance" and len(test.args) == 2
            and isinstance(test.args[0], ast.Name) and test.args[0].id == name
        ):
            return None
        classes = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        kinds = {self.kind_of_type(cls) for cls in classes} - ({None} if admitted else set())
        return kinds.pop() if len(kinds) == 1 else None

    def _of_binding(self, scope: ast.AST, binding: Binding, name: str) -> Value:
        if binding.how == "value" and not binding.path and self._starts_empty(binding.node, _MAPS) and isinstance(scope, FUNCTIONS):
            return self._filled_record(scope, name)
        if binding.how == "value":
            return disowned(project(self.of(binding.node), binding.path))
        if binding.how == "element":
            return project(element_of(self.of(binding.node)), binding.path)  # the loop's iterator is no owner
        if binding.how == "annotated":
            return self.of_annotation(binding.node)
        if binding.how == "parameter" and isinstance(scope, (*FUNCTIONS, ast.Lambda)):
            return self._of_parameter(scope, binding.node)  # type: ignore[arg-type]
        if binding.how == "opaque" and isinstance(binding.node, ast.ExceptHandler) and isinstance(scope, FUNCTIONS):
            return self._caught(scope, binding.node)
        if binding.how == "opaque" and isinstance(binding.node, ast.AugAssign) and isinstance(binding.node.target, ast.Name):
            # ``item -= 1``: arithmetic in place leaves a tensor the tensor it was (what the other bindings
            # say it is); a list grown with ``+=`` stays unknown here
            before = self._of_name(binding.node.target)
            return self._derived([before, self.of(binding.node.value)], binding.node) if isinstance(before, Obj) else None
        return None

    def _starts_empty(self, node: ast.AST, types: frozenset[ContainerType] = _FILLED_LATER) -> bool:
        """``[]``, ``{}``, ``set()``, ``collections.deque(maxlen=8)``: a container of one of ``types`` built
        with nothing in it."""
        built = classify(node, self.names) if isinstance(node, ast.expr) else None
        return built is not None and built.type in types and not initial_members(built)

    def _filled_record(self, function: FunctionNode, name: str) -> Value:
        """``state = dict()``, then ``state["model"] = model``: a record a function fills key by key holds
        what it puts under its keys, as the literal ``{"model": model}`` would, and so does a map it fills
        under computed keys (``basis[f"({i},{j})"] = torch.stack(ks)``), as a comprehension would. The
        function's items are found in one walk, kept for each of its records."""
        if function not in self._record_items:
            found: dict[str, list[ast.expr]] = {}
            for node in walk(function):
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and (record := _item_of(node.targets[0])):
                    found.setdefault(record, []).append(node.value)
            self._record_items[function] = found
        items = tuple(self.of(value) for value in self._record_items[function].get(name, ()))
        return Tup(items) if any(item is not None for item in items) else None

    def _caught(self, function: FunctionNode, handler: ast.ExceptHandler) -> Value:
        """``except RuntimeError as error`` in a function whose frame holds a framework object (a parameter):
        the exception's traceback holds that frame, so whatever keeps the exception keeps its locals."""
        for parameter in function_parameters(function):
            held = self._of_parameter(function, parameter)
            if isinstance(held, Obj) and held.foreign and held.kind != EXCEPTION:
                why = f"`{handler.name}` caught at line {handler.lineno} keeps the frame of `{function.name}` and its `{parameter.arg}`: {held.why}"
                return Obj(EXCEPTION, why, held.line or handler.lineno, from_foreign=True)
        return None

    def _of_call(self, call: ast.Call) -> Value:
        function = call.func
        if isinstance(function, ast.Attribute) and function.attr in ITERATION_METHODS:
            kind, named = ITERATION_METHODS[function.attr]
            receiver = self.of(function.value)  # ``nn.Linear(2, 2).parameters()``: owned with their model
            owned, held = (receiver.owned, receiver.module_held) if isinstance(receiver, Obj) else (False, self._bound_at_import(function.value))
            found = Obj(kind, f"from `{text(call)}`", call.lineno, owned=owned, module_held=held)
            return Seq(Tup((None, found)) if named else found)
        local = self._local_class(function)
        if local is not None:
            if local.kind:
                return Obj(local.kind, f"built by `{text(function)}(...)`", call.lineno, owned=True)
            held = self.holding(local)
            if not held:
                init = next((cls.node for cls in self.survey.lineage(local) if "__init__" in cls.methods), None)
                return self._kept_from_the_call(call, local.name, parameters_kept(init) if init is not None else [], "")
            # built here, but around what the caller handed over (``Replaced(original=module)``): the record
            # keeps those alive for as long as it lives
            around = [found for argument in (*call.args, *(k.value for k in call.keywords)) if isinstance(found := self.of(argument), Obj) and found.foreign]
            return Obj(local.name, f"built by `{text(function)}(...)`", call.lineno, owned=True, holds=held, from_foreign=bool(around))
        loaded = self._loaded(call)
        if loaded is not None:
            return loaded
        made = self._made_by_local_function(function)
        if made is not None:
            return made
        qualified = self.names.qualify(function)
        if qualified is None:
            # ``X.float()``, ``X.view(-1)``, ``loss.detach()``: a tensor computed by a method of a tensor
            if not isinstance(function, ast.Attribute):
                return None
            receiver = self.of(function.value)
            if isinstance(receiver, Obj) and receiver.kind == MODULE and function.attr in MODULE_METHODS_RETURNING_SELF:
                return receiver  # ``Net().cuda()``, ``model.eval()``: the same module
            if receiver is None and (method := prepared_in_a_chain(call)) is not None:  # ``Attention(...).to(d).eval()``
                return Obj(MODULE, f"`{text(call)}` prepares a model (`.{method}()`)", call.lineno, owned=True, built=True)
            if receiver is None and function.attr in _TENSOR_ONLY_CASTS and not call.args and not call.keywords:
                # ``encode_line(line).long()``: only a tensor converts so, and it may hand back the receiver
                # itself: the code's own when the receiver is a result of its own call, else its caller's
                made = isinstance(function.value, ast.Call)
                return Obj(TENSOR, f"converted by `.{function.attr}()`, which only tensors have", call.lineno, owned=made, built=made)
            if function.attr in _TENSOR_SEQUENCE_FUNCTIONS:  # ``x.split(n)``: its pieces
                pieces = self._derived([receiver], call)
                return Seq(pieces) if pieces is not None else None
            return self._derived([receiver], call, function.attr in _TENSOR_METHODS or _in_place(function.attr))
        arguments = [argument for argument in call.args if not isinstance(argument, ast.Starred)]
        builtin = qualified[len("builtins.") :] if qualified.startswith("builtins.") else None
        if builtin == "enumerate" and arguments:
            return Seq(Tup((None, element_of(self.of(arguments[0])))))
        if builtin == "zip" and arguments:
            return Seq(Tup(tuple(element_of(self.of(argument)) for argument in arguments)))
        if builtin in _PASS_THROUGH and arguments:
            return Seq(element_of(self.of(arguments[0])))
        if builtin == "next" and arguments:
            return element_of(self.of(arguments[0]))
        if builtin == "dict" and not call.args and call.keywords and all(keyword.arg for keyword in call.keywords):
            # ``dict(region_mask=mask)``: a record, as the literal ``{"region_mask": mask}`` is
            items = tuple(self.of(keyword.value) for keyword in call.keywords)
            return Tup(items) if any(item is not None for item in items) else None
        if qualified == "functools.reduce" and len(arguments) >= 2 and self.names.qualify(arguments[0]) in _TENSOR_FUNCTIONS:
            # ``reduce(torch.minimum, weights)``: the operation folded over the tensors, a tensor of them
            return self._derived([element_of(self.of(arguments[1]))], call)
        if qualified in CASTS and len(arguments) == 2:  # ``cast("Sequence[object]", torch.load(path))``: the value itself
            return self.of(arguments[1])
        if qualified in ("copy.deepcopy", "copy.copy") and len(arguments) == 1:  # a new object of the same kind
            original = self.of(arguments[0])
            if isinstance(original, Obj):
                return Obj(original.kind, f"a copy made by `{text(call)}`", call.lineno, owned=True, holds=original.holds)
        if qualified in _EINOPS_FUNCTIONS and arguments:  # ``rearrange(q, "(o m) -> o m", m=n)``
            return self._derived([self.of(arguments[0])], call, True)
        kind = self.vocabulary.kind_of_call(qualified)
        if kind is not None:
            return Obj(kind, f"built by `{text(function)}(...)`", call.lineno, owned=True, iterates=_FRAMEWORK_SEQUENCES.get(qualified, ""))
        if qualified.startswith("torch."):  # ``torch.softmax(X)``
            pieces, copies = qualified[len("torch."):] in _TENSOR_SEQUENCE_FUNCTIONS or qualified in _TENSOR_RESULTS, qualified in _COPYING_FUNCTIONS
            tensor_valued = pieces or copies or qualified in _TENSOR_FUNCTIONS or qualified.startswith("torch.nn.functional.")
            operands = [self.of(argument) for argument in arguments]
            derived = self._derived(operands, call, tensor_valued)
            if copies and isinstance(derived, Obj) and derived.owned:
                return replace(derived, from_foreign=False)  # a copy: its operands may go
            if derived is not None:
                return Seq(derived) if pieces else derived
            if qualified in _TENSOR_RESULTS:  # ``_u, s, v = torch.svd(a)``: new tensors, whatever ``a`` is
                return Seq(Obj(TENSOR, f"computed by `{text(call)}`", call.lineno, owned=True))
            if tensor_valued and not pieces and operands and all(operand is None for operand in operands):
                # ``torch.dot(weights, scores)`` of locals nothing here types: torch returns a new tensor
                # whatever it is handed, and it is the caller's own
                return Obj(TENSOR, f"computed as `{text(call)}`", call.lineno, owned=True)
        built = self.survey.imported.class_kind(qualified)
        if built is not None:
            return Obj(built.kind, f"built by `{text(function)}(...)`; {built.why}", call.lineno, owned=True)
        holder = self.survey.imported.holder(qualified)
        if holder is not None:
            return Obj(holder.kind, f"built by `{text(function)}(...)`", call.lineno, owned=True, holds=holder.why)
        module, kept = self.survey.imported.kept_parameters(qualified)
        if kept:
            return self._kept_from_the_call(call, qualified.rpartition(".")[2], kept, f"`{module}` ")
        made = self.survey.imported.built_kind(qualified)
        if made is not None:  # ``build_model(cfg)`` of another module: a new object each call, as ``Net(cfg)``
            return Obj(made.kind, f"built by `{text(function)}(...)`; {made.why}", call.lineno, owned=True)
        returned = self.survey.imported.returned_kind(qualified)
        if returned is None:
            elements = self.survey.imported.returned_tuple(qualified)
            return Tup(tuple(Obj(e.kind, f"from `{text(call)}`; {e.why}", call.lineno) if e else None for e in elements)) if elements else None
        if qualified.startswith("torch.") and _given_no_object(call):
            # ``torch.cuda.get_rng_state()``, ``init_device_mesh("cpu", (2,))``: torch hands back an object it
            # makes (a tensor, a mesh holding its rank tensor), which nobody else holds
            return Obj(returned.kind, f"made by `{text(call)}`, given no object; {returned.why}", call.lineno, owned=True)
        return Obj(returned.kind, f"from `{text(call)}`; {returned.why}", call.lineno)

    def _kept_from_the_call(self, call: ast.Call, name: str, kept: list[tuple[str, str, int, int]], where: str) -> Optional[Obj]:
        """``Patcher(model=net)``: a class whose ``__init__`` stores a parameter as it is (``self.model =
        model``) holds whatever this call hands it there, when that is a framework object or holds one."""
        for attribute, parameter, position, line in kept:
            argument = argument_at(call, parameter, position if position >= 0 else len(call.args))
            found = self.of(argument) if argument is not None else None
            if isinstance(found, Obj):
                holds = f"`{name}` keeps {describe(found.kind)} in `self.{attribute}` ({where}line {line}), here {found.cited(call.lineno)}"
                return Obj(name, f"built by `{text(call.func)}(...)`", call.lineno, owned=True, holds=holds, from_foreign=found.foreign and not (found.built and not found.from_foreign))
        return None

    # --- types -------------------------------------------------------------------------------------

    def of_annotation(self, annotation: Optional[ast.AST]) -> Value:
        """What an annotation says about a value: ``nn.Module``, ``Optional[Tensor]``, ``List[nn.Parameter]``."""
        if annotation is None:
            return None
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                return self.of_annotation(ast.parse(annotation.value, mode="eval").body)
            except SyntaxError:
                return None
        if isinstance(annotation, (ast.Name, ast.Attribute)):
            kind = self.kind_of_type(annotation)
            if kind is None:  # ``Tensors = List[Tensor]``, ``M = TypeVar("M", bound=nn.Module)``: what it stands for
                return self._through_alias(annotation, self.of_annotation)
            line = getattr(annotation, "lineno", 0)
            iterates = _FRAMEWORK_SEQUENCES.get(self.names.qualify(annotation) or "", "")
            return Obj(kind, f"annotated `{text(annotation)}`", line, holds=self.holder_reason(annotation), iterates=iterates)
        if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
            return self._either(annotation.left, annotation.right)
        if not isinstance(annotation, ast.Subscript):
            return None
        generic = _typing_name(self.names.qualify(annotation.value))
        parts = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        if generic in ("Optional", "ClassVar", "Final", "Annotated"):
            return self.of_annotation(parts[0])
        if generic == "Union":
            return self._either(*parts)
        if generic in _TYPING_SEQUENCES or (generic in ("Tuple", "tuple") and len(parts) == 2 and _is_ellipsis(parts[1])):
            return Seq(self.of_annotation(parts[0]))
        if generic in ("Tuple", "tuple"):
            return Tup(tuple(self.of_annotation(part) for part in parts))
        return None

    def _stands_for(self, name: ast.AST) -> list[ast.expr]:
        """What a type alias or a type variable of this module names: ``Tensors = List[Tensor]`` (the
        alias), ``M = TypeVar("M", bound=nn.Module)`` (its bound), ``Opt = TypeVar("Opt", Base, Optimizer)``
        (each constraint: a value is one of them, so any that is a framework type makes one). A name bound
        more than once, or to anything else, stands for nothing known."""
        if not isinstance(name, ast.Name):
            return []
        if name.id in self._aliasing:
            self._cuts += 1
            return []
        bindings = self.scopes.bindings(self.scopes.module).names.get(name.id, [])
        value = bindings[0].node if len(bindings) == 1 and bindings[0].how == "value" and not bindings[0].path else None
        if isinstance(value, ast.Call) and self.names.qualify(value.func) in TYPE_VARIABLES:
            bound = next((keyword.value for keyword in value.keywords if keyword.arg == "bound"), None)
            found = [bound] if bound is not None else value.args[1:]
        elif isinstance(value, (ast.Subscript, ast.Attribute, ast.Name, ast.BinOp)):
            found = [value]
        else:
            return []
        return found

    def _through_alias(self, name: ast.AST, read: Callable[[ast.expr], Value]) -> Value:
        """``read`` of the first thing the alias ``name`` stands for that says anything."""
        aliases = self._stands_for(name)
        if not aliases or not isinstance(name, ast.Name):
            return None
        self._aliasing.add(name.id)  # ``A = B`` and ``B = A`` end here
        try:
            return next((found for alias in aliases if (found := read(alias)) is not None), None)
        finally:
            self._aliasing.discard(name.id)

    def _either(self, *alternatives: ast.AST) -> Value:
        """``X | None`` and ``Union[X, None]`` are X: ``None`` never pins anything."""
        real = [option for option in alternatives if not (isinstance(option, ast.Constant) and option.value is None)]
        return same(self.of_annotation(option) for option in real)

    def kind_of_type(self, expr: ast.AST) -> Optional[str]:
        """The framework kind of instances of the class ``expr`` names (local subclasses included), or the
        class's own name for a class whose instances hold framework objects (``holding``)."""
        local = self._local_class(expr)
        if local is not None:
            return local.kind or (local.name if self.holding(local) is not None else None)
        qualified = self.names.qualify(expr)  # type: ignore[arg-type]
        if qualified is None:
            return None
        kind = self.vocabulary.kind_of_type(qualified)
        if kind is None and (imported := self.survey.imported.class_kind(qualified)) is not None:
            kind = imported.kind
        if kind is None and (holder := self.survey.imported.holder(qualified)) is not None:
            kind = holder.kind
        return kind

    def _annotated_instance(self, annotation: ast.expr) -> Optional[Obj]:
        """A framework object an attribute's annotation says it holds, anywhere in it: ``Optional[Tensor]``,
        ``dict[str, dict[str, nn.Module]]``, ``list[Chunk]``; never what ``type[...]`` or ``Callable[...]`` name."""
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                return self._annotated_instance(ast.parse(annotation.value, mode="eval").body)
            except SyntaxError:
                return None
        if isinstance(annotation, (ast.Name, ast.Attribute)):
            kind = self.kind_of_type(annotation)
            if kind is None:
                return self._through_alias(annotation, self._annotated_instance)  # type: ignore[return-value]
            return Obj(kind, f"annotated `{text(annotation)}`", annotation.lineno)
        if isinstance(annotation, ast.BinOp):
            return self._annotated_instance(annotation.left) or self._annotated_instance(annotation.right)
        if isinstance(annotation, ast.Subscript):
            if (_typing_name(self.names.qualify(annotation.value)) or "") in ("Type", "type", "Callable", "Literal"):
                return None
            parts = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
            return next((found for part in parts if (found := self._annotated_instance(part)) is not None), None)
        return None

    def holder_reason(self, expr: ast.AST) -> str:
        """What instances of the class ``expr`` names hold, when it is a holder rather than a framework class."""
        local = self._local_class(expr)
        if local is not None:
            return "" if local.kind else (self.holding(local) or "")
        qualified = self.names.qualify(expr)  # type: ignore[arg-type]
        if qualified is None or self.vocabulary.kind_of_type(qualified) or self.survey.imported.class_kind(qualified):
            return ""
        holder = self.survey.imported.holder(qualified)
        return holder.why if holder is not None else ""

    def _made_by_local_function(self, function: ast.expr) -> Value:
        """``_load(path)``, a function of this module (undecorated, or under a cache of its own), or
        ``self._mask(shape)``, a method of the class of ``self`` here (or of a base here), that returns a model
        or tensor it builds on every path that returns one (``model = Net(); ...; return model``, or ``return
        model, msg``): the call builds it too. Only what the function builds counts: what it returns of its
        caller's depends on the call."""
        callee = self._local_callee(function)
        if not isinstance(callee, FUNCTIONS) or isinstance(callee, ast.AsyncFunctionDef):
            return None
        decorators = [d for d in callee.decorator_list if not (callee in self.survey.unbound_methods and text(d) in _UNBINDING)]
        if decorators and not (
            len(decorators) == 1 and any(c.function is callee and c.wrapper is None for c in self.survey.cached_functions)
        ):
            return None
        # ``@lru_cache def window(n)``: the same object the undecorated function builds, made by this module;
        # its cache keeps it too, which pins nothing of anyone else's
        return self._made_by(callee)

    def _made_by(self, callee: FunctionNode) -> Value:
        if callee not in self._made:
            self._made[callee] = None  # a function that calls itself ends here
            returns = [r.value for r in own_returns(callee) if not SlotStore.is_none(r.value)]  # type: ignore[arg-type]
            found = same(self.of(value) for value in returns) if returns else None
            if isinstance(found, Tup):  # ``return model, tokenizer``: each item as if returned alone
                items = tuple(self._built_by(callee, item) for item in found.items)
                self._made[callee] = Tup(items) if any(item is not None for item in items) else None
            else:
                self._made[callee] = self._built_by(callee, found)
        return self._made[callee]

    def built_by_what_was_handed(self, value: ast.expr, call: ast.Call, skipped: int, function: FunctionNode) -> Value:
        """``cache[key] = build()`` (or ``value = build()``, then ``cache[key] = value``) in ``def _cached(cache,
        key, build)``, where ``call`` handed the container over: what the builder that call passes as ``build``
        returns, a lambda's body or a function of the module (nested in the caller too), as a call of it here
        would build. A builder nothing at the call names is the caller's own business."""
        if isinstance(value, ast.Name):
            value = reaching_value(self.scopes, value, function) or value
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
            return None
        resolved = self.scopes.resolve(value.func.id, value.func)
        parameters = function_parameters(function)
        names = [parameter.arg for parameter in parameters]
        if resolved is None or resolved[0] is not function or value.func.id not in names:
            return None
        index = names.index(value.func.id)
        if index < skipped:
            return None  # the receiver itself
        positional = len(function.args.posonlyargs) + len(function.args.args)  # type: ignore[union-attr]
        # a keyword-only builder only by its name: no positional argument reaches it
        argument = argument_at(call, value.func.id, index - skipped if index < positional else len(call.args))
        found: Value = None
        if isinstance(argument, ast.Lambda):
            found = self.of(argument.body)
        elif isinstance(argument, ast.Name):
            builder = self.scopes.resolve(argument.id, argument)
            definition = builder[1][0].node if builder is not None and len(builder[1]) == 1 and builder[1][0].how == "def" else None
            found = self._made_by(definition) if isinstance(definition, ast.FunctionDef) and not definition.decorator_list else None
        return replace(found, why=f"{found.why}, in the builder handed to `{text(call.func)}()`") if isinstance(found, Obj) else found

    def _local_callee(self, function: ast.expr) -> Optional[ast.AST]:
        """The ``def`` this module has for what a call names: a module-level function bound once, a method
        that ``self.name`` finds in the class of ``self`` or its bases here (an override in a subclass
        elsewhere is not seen), or a static or class method a class of this module is called through
        (``Net.build(cfg)``: an alternative constructor)."""
        if isinstance(function, ast.Attribute):
            owner = self._bound_owner(function)
            named = owner or self._local_class(function.value)  # ``ZoeDepth.build(cfg)``: a static or class method of its own
            method = next((info.methods[function.attr] for info in self.survey.lineage(named) if function.attr in info.methods), None) if named else None
            return method if owner is not None or method in self.survey.unbound_methods else None
        if not isinstance(function, ast.Name) or function.id not in self.survey.functions:
            return None  # the common call: no ``def`` of the module has that name
        resolved = self.scopes.resolve(function.id, function)
        if resolved is None or resolved[0] is not self.scopes.module or len(resolved[1]) != 1 or resolved[1][0].how != "def":
            return None
        return resolved[1][0].node

    @staticmethod
    def _built_by(callee: FunctionNode, found: Value) -> Optional[Obj]:
        if isinstance(found, Obj) and (found.owned or found.built) and not found.module_held:
            return Obj(found.kind, f"returned by `{callee.name}`, {found.why}", found.line, owned=True, holds=found.holds)
        return None

    def holding(self, info: ClassInfo, any_method: bool = False) -> Optional[str]:
        """Why instances of this module's class ``info`` hold framework objects, when it has no framework
        base of its own: its ``__init__`` (or a local base's) stores one in an attribute (``self.model =
        model`` with ``model: nn.Module``, ``self.buffer = torch.zeros(...)``); whatever keeps such an
        instance alive keeps those alive. With ``any_method``, a store by any of its methods counts too
        (``def set_up(self): self.module = nn.Sequential(...)``): a cache keyed by the instance keeps it
        whenever the store ran. Not for a class with value equality (``__eq__``/``__hash__``): containers
        keyed by its instances merge equal ones, which a fix by identity would not."""
        key = (info.node, "<holding after set-up>" if any_method else "<holding>")
        if key in self._held:
            return self._held[key]
        self._held[key] = None  # a class that stores an instance of itself ends here
        found: Optional[str] = None
        lineage = list(self.survey.lineage(info))
        if not any({"__eq__", "__hash__"} & set(cls.methods) for cls in lineage):
            for cls in lineage:
                field_found = self._record_field(cls)
                if field_found is not None:
                    found = f"`{info.name}` holds {describe(field_found[1].kind)} (field `{field_found[0]}`, line {field_found[1].line})"
                    break
                init = cls.methods.get("__init__")
                methods = [init] if init is not None else []
                if any_method:
                    methods += [m for m in cls.methods.values() if m is not init and m not in self.survey.unbound_methods and m not in self.survey.class_methods]
                found = next((stored for method in methods if (stored := self._stored_on_self(info, method)) is not None), None)
                if found is not None:
                    break
                found = self._guarded_on_self(info, cls)
                if found is not None:
                    break
            found = found or self._held_by_an_imported_base(info, lineage, any_method)
        self._held[key] = found
        return found

    def _stored_on_self(self, info: ClassInfo, method: FunctionNode) -> Optional[str]:
        """Why ``method`` makes an instance of ``info`` hold a framework object: the first store on its
        receiver of one (``self.model = model`` with ``model: nn.Module``). A parameter stored as it is, or
        an element of it, holds what its annotation names anywhere (``args: Union[Tuple[Tensor],
        List[Tensor], Tensor]``), as the project index reads a class of another module
        (``summaries._instance_types``)."""
        parameters = function_parameters(method)
        if not parameters:
            return None
        annotated = {parameter.arg: parameter.annotation for parameter in parameters[1:] if parameter.annotation is not None}
        for node in walk(method):  # type: ignore[arg-type]
            if not isinstance(node, (ast.Assign, ast.AnnAssign)):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            attribute = next((t.attr for t in targets if is_attribute_of(t, parameters[0].arg, t.attr if isinstance(t, ast.Attribute) else "")), None)
            if attribute is None:
                continue
            value = self.of(node.value) if node.value is not None else None
            held = value if isinstance(value, Obj) else element_of(value)
            if not isinstance(held, Obj) and isinstance(node, ast.AnnAssign):
                held = self._annotated_instance(node.annotation)
            stored = _stored_parameter(node.value, annotated) if not isinstance(held, Obj) else None
            if stored is not None:
                held = self._annotated_instance(stored)
            if not isinstance(held, Obj) and isinstance(node.value, ast.Name):  # ``assert isinstance(data, (Tensor, ndarray))``
                held = self._narrowed(node.value, method, admitted=True) or self._guarded(method, node.value.id)
            if isinstance(held, Obj):
                return f"`{info.name}` holds {describe(held.kind)} (`self.{attribute}`, line {node.lineno})"
        return None

    def _guarded(self, method: FunctionNode, name: str) -> Optional[Obj]:
        """What a guard of ``method`` says ``name`` is (``if not isinstance(optimizer, Optimizer): raise``):
        the first framework kind among the types it allows."""
        guarded = guarded_types(method).get(name)
        if guarded is None:
            return None
        return next((found for cls in guarded[0] if (found := self._annotated_instance(cls)) is not None), None)

    def _guarded_on_self(self, info: ClassInfo, cls: ClassInfo) -> Optional[str]:
        """Why instances of ``info`` hold a framework object by what a method of ``cls`` (``info`` or a local
        base) raises unless an attribute is (``if not isinstance(self._optimizer, torch.optim.Optimizer):
        raise ValueError(...)``): the class declares what it keeps, as an annotation would."""
        for method in cls.methods.values():
            if method in self.survey.unbound_methods or method in self.survey.class_methods:
                continue
            for attribute, types, line in guarded_attributes(method):
                held = next((found for t in types if (found := self._annotated_instance(t)) is not None), None)
                if held is not None:
                    return f"`{info.name}` holds {describe(held.kind)} (`self.{attribute}`, checked at line {line})"
        return None

    def _held_by_an_imported_base(self, info: ClassInfo, lineage: list[ClassInfo], any_method: bool = False) -> Optional[str]:
        """A base from another project module whose ``__init__`` stores a framework object (nanotron's
        ``OptimizerFromGradientAccumulator(InheritFromOtherOptimizer)``, whose base keeps the optimizer), or
        with ``any_method`` one of its other methods (``summaries.stored_later_by``)."""
        for cls in lineage:
            for base in cls.node.bases:
                qualified = self.names.qualify(base) if self._local_class(base) is None else None
                holder = self.survey.imported.holder(qualified) if qualified else None
                if holder is not None:
                    return f"`{info.name}` derives from `{text(base)}`: {holder.why}"
                stored = self.survey.imported.stored_later(qualified) if qualified and any_method else []
                if stored:
                    first = stored[0]
                    return (
                        f"`{info.name}` derives from `{text(base)}`, whose `{first.method}` sets `self.{first.attribute}` "
                        f"to {describe(first.kind)} (`{first.module}` line {first.line})"
                    )
        return None

    def is_record(self, info: ClassInfo) -> bool:
        """A ``@dataclass`` or a ``NamedTuple``: its class-body annotations are the fields its constructor
        stores in each instance, and their values only defaults."""
        return is_record(info.node, self.names.qualify)

    def _record_field(self, info: ClassInfo) -> Optional[tuple[str, Obj]]:
        """The first field of a record class annotated as a framework object (``original: nn.Module``)."""
        if not self.is_record(info):
            return None
        for statement in info.node.body:
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                held = self._annotated_instance(statement.annotation)
                if isinstance(held, Obj):
                    return statement.target.id, replace(held, line=statement.lineno)
        return None

    def _loaded(self, call: ast.Call) -> Optional[Obj]:
        """``Net.from_pretrained(path)``, ``Net.from_config(c)``, ``Net.load_from_checkpoint(p)``: a class's
        alternative constructor (a classmethod named ``from_*``, or Lightning's ``load_from_checkpoint``) builds an
        instance of the class it is called on: a model when that is a framework class, a holder of one when its
        instances hold one (a pipeline)."""
        function = call.func
        if not (isinstance(function, ast.Attribute) and (function.attr.startswith("from_") or function.attr == "load_from_checkpoint")):
            return None
        if not isinstance(function.value, (ast.Name, ast.Attribute)):
            return None
        kind = self.kind_of_type(function.value)
        if kind is None:
            return None
        return Obj(kind, f"loaded by `{text(function)}(...)`", call.lineno, owned=True, holds=self.holder_reason(function.value), built=True)

    def _local_class(self, expr: ast.AST) -> Optional[ClassInfo]:
        """The class of this module a name stands for: the class's own name, or ``cls`` in one of its
        class methods (``return cls(core)``: an instance of it)."""
        if not isinstance(expr, ast.Name):
            return None
        resolved = self.scopes.resolve(expr.id, expr)
        if expr.id in self.survey.classes and (resolved is None or resolved[0] is self.scopes.module):
            return self.survey.classes[expr.id]
        if resolved is not None and isinstance(resolved[0], FUNCTIONS) and [b.how for b in resolved[1]] == ["parameter"] and is_cls(expr, resolved[0], self.survey):
            return self.survey.method_owner.get(resolved[0])
        return None

    # --- parameters --------------------------------------------------------------------------------

    def _of_parameter(self, function: FunctionNode | ast.Lambda, parameter: ast.arg) -> Value:
        if self.survey.class_decorators and function_parameters(function)[0] is parameter and self._decorates_only_classes(function):
            return None  # it receives each class it decorates, whatever its annotation says
        annotated = self.of_annotation(parameter.annotation)
        if annotated is not None:
            if not isinstance(annotated, Obj):
                return annotated
            return replace(annotated, why=f"parameter `{parameter.arg}: {text(parameter.annotation)}`", line=parameter.lineno)
        position = function_parameters(function).index(parameter)
        owner = self.survey.method_owner.get(function)
        if owner is not None and position == 0 and function not in self.survey.unbound_methods:
            if owner.kind:
                return Obj(owner.kind, f"`{parameter.arg}` is a `{owner.name}`, a subclass of `{owner.framework_base}`", parameter.lineno)
            held = self.holding(owner)
            if held is not None:
                return Obj(owner.name, f"`{parameter.arg}` is a `{owner.name}`", parameter.lineno, holds=held)
        hook = self.hooks.get(function)
        if hook is not None and position == hook.position:
            return Obj(hook.kind, f"`{parameter.arg}` of a hook registered with `{hook.registrar}`", hook.line)
        if hook is not None and hook.kind == MODULE and position > hook.position >= 0:
            return self._seen_by_a_module_hook(function, parameter, position, hook)
        called = self.from_call_sites(function, parameter, position)
        if called is not None or isinstance(function, ast.Lambda):
            return called
        used = self._modules_by_use(function).get(parameter.arg)
        if used:
            return Obj(MODULE, f"`{parameter.arg}.{used[0]}()` is called", used[1])
        return self._tensor_by_use(function, parameter.arg) if isinstance(function, FUNCTIONS) else None

    def _decorates_only_classes(self, function: FunctionNode | ast.Lambda) -> bool:
        """``@register`` above class definitions and nowhere else in the module, or ``@register(...)`` where
        ``register`` returns ``function``: what ``function`` receives is the class it decorates. A registry
        such a decorator fills holds classes (``subgraph: torch.nn.Module`` annotates a class there)."""
        if isinstance(function, ast.Lambda):
            return False
        factory = self.scopes.parent(function)
        made = isinstance(factory, FUNCTIONS) and returned_function(factory) is function  # type: ignore[arg-type]
        named = factory if made else function
        if named.name not in self.survey.class_decorators or self.survey.functions.get(named.name) is not named:  # type: ignore[union-attr]
            return False
        for use in self.mentions_of(named.name):  # type: ignore[union-attr]
            decorator = self.scopes.parent(use) if made else use
            if made and not (isinstance(decorator, ast.Call) and decorator.func is use):
                return False
            decorated = self.scopes.parent(decorator)  # type: ignore[arg-type]
            if not (isinstance(decorated, ast.ClassDef) and any(decorator is d for d in decorated.decorator_list)):
                return False
        return True

    def _seen_by_a_module_hook(self, function: FunctionNode | ast.Lambda, parameter: ast.arg, position: int, hook: Hook) -> Value:
        """What a module hook is handed after the module: the forward's output (the last parameter of a
        forward hook), a tensor; its inputs, or the gradients of a backward hook, a tuple of tensors. What
        the hook stores of them stays alive with the activations' autograd graph."""
        why = f"`{parameter.arg}` of a hook registered with `{hook.registrar}`"
        last = position == len(function_parameters(function)) - 1
        if last and "forward_hook" in hook.registrar and "pre" not in hook.registrar:
            return Obj(TENSOR, why, hook.line, iterates=TENSOR)  # or a tuple of them (an LSTM's): ``output[0]``
        return Seq(Obj(TENSOR, why, hook.line))

    def from_call_sites(self, function: FunctionNode | ast.Lambda, parameter: ast.arg, position: int) -> Value:
        """``_warn_once(self)`` from a module's ``forward``: a module-level function's parameter is what
        its callers in this module pass it, when one of them passes a framework object there."""
        if isinstance(function, ast.Lambda) or self.survey.functions.get(function.name) is not function:
            return None
        key = (parameter, "<call sites>")  # not the name's own key: ``_of_name`` holds that one
        if key in self._active:
            self._cuts += 1
            return None
        self._active.add(key)
        try:
            for call in self.calls_of(function.name):
                argument = argument_at(call, parameter.arg, position)
                found = self.of(argument) if argument is not None else None
                if isinstance(found, (Tup, Seq)) and not _holds_an_object(found):
                    continue
                if isinstance(found, (Obj, Tup, Seq)):  # ``save_loss((tokens_per_expert, scores))`` too
                    def passed(obj: Obj, call: ast.Call = call) -> Obj:
                        return replace(obj, why=f"{obj.why} at line {obj.line or call.lineno}, passed as `{parameter.arg}`", line=call.lineno)
                    return _marked(found, passed)
        finally:
            self._active.discard(key)
        return None


def is_attribute_of(target: ast.expr, receiver: str, attribute: str) -> bool:
    """``self.model`` for receiver ``self`` and attribute ``model``."""
    return isinstance(target, ast.Attribute) and target.attr == attribute and isinstance(target.value, ast.Name) and target.value.id == receiver


def _blocks(node: ast.AST) -> list[list[ast.stmt]]:
    return [getattr(node, name) for name in ("body", "orelse", "finalbody") if isinstance(getattr(node, name, None), list)]


def _stored_parameter(value: Optional[ast.expr], annotated: dict[str, ast.expr]) -> Optional[ast.expr]:
    """The annotation of the parameter a store puts on ``self``: as it is (``args``), an element of it
    (``args[0]``), or either branch of a conditional (``args[0] if isinstance(args, tuple) else args``)."""
    if isinstance(value, ast.IfExp):
        return _stored_parameter(value.body, annotated) or _stored_parameter(value.orelse, annotated)
    if isinstance(value, ast.Subscript):
        value = value.value
    return annotated.get(value.id) if isinstance(value, ast.Name) else None


def _calls(call: ast.Call, name: str, method: bool) -> bool:
    function = call.func
    if method:
        return isinstance(function, ast.Attribute) and function.attr == name
    return isinstance(function, ast.Name) and function.id == name


def argument_at(call: ast.Call, name: str, position: int) -> Optional[ast.expr]:
    if any(isinstance(argument, ast.Starred) for argument in call.args[: position + 1]):
        return None
    if position < len(call.args):
        return call.args[position]
    return next((keyword.value for keyword in call.keywords if keyword.arg == name), None)


def _item_of(target: ast.expr) -> Optional[str]:
    """``state`` for ``state["model"]`` or ``basis[key]``: the name whose item the assignment stores (not a
    slice of it)."""
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and not isinstance(target.slice, ast.Slice):
        return target.value.id
    return None


def _is_ellipsis(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _indexed_by_position(record: ast.Dict) -> bool:
    """A literal with an integer key: a ``Tup`` is read by position (``x[0]``), so modelling it as one would
    read ``{1: a, 0: b}[0]`` as ``a``."""
    return any(isinstance(key, ast.Constant) and isinstance(key.value, int) for key in record.keys)
