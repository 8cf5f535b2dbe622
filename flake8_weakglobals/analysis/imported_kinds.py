"""What names imported from elsewhere in the project are, in the analysis's terms.

The project index (``index/project.py``) knows classes, bases and wrappers but not what a framework object is;
this layer asks it about one qualified name at a time and answers with framework kinds. Without a project
(a snippet, stdin, a file outside any package) every answer is "unknown", as before the index existed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..index.project import ModuleContext
from ..index.summaries import CACHE_FUNCTIONS as CACHE_DECORATORS, INDEX_STEP, MODULE_METHODS_RETURNING_SELF, OPERATOR_STEP
from ..syntax.container_expressions import ContainerType
from .framework_types import HOLDER_FACTORIES, MODULE, TENSOR, Vocabulary, describe, tensor_valued


#: Modules that hold no project's classes, whose names annotations spell all the time.
_NO_PROJECT_CLASSES = ("builtins.", "typing.", "typing_extensions.", "collections.abc.")


@dataclass(frozen=True)
class ImportedKind:
    kind: str
    why: str  # ``a subclass of `nn.Module` through `pkg.base.Rotary` ``


@dataclass(frozen=True)
class ImportedContainer:
    module: str  # where it is defined: ``pkg.state``
    name: str  # its name there: ``registry``, ``Store._items``
    line: int
    type: ContainerType


@dataclass(frozen=True)
class ImportedKeeper:
    """A project function of another module that keeps one of its arguments in a container of its own."""

    module: str  # where the function and the container are: ``pkg.state``
    position: int  # of the kept argument, as callers pass it (``cls`` not counted); -1: any (a cache)
    container: str  # ``registry``, or ``Store._items`` for a class-level one; the function, for a cache
    line: int  # of the container, or of the cache decorator
    type: Optional[ContainerType]  # None: the function's own cache
    decorator: str = ""  # the cache decorator, as written: ``functools.lru_cache``


@dataclass(frozen=True)
class ImportedStore:
    """A framework object a method of a project class of another module stores on its instances and never
    sets back (``summaries.stored_later_by``), judged here."""

    module: str  # where the class that defines the method is: ``pkg.inference``
    cls: str  # that class's name there: ``End2End``
    method: str
    attribute: str
    line: int
    kind: str
    handed: bool  # what its caller hands it (a parameter annotated so), else what it builds or loads
    filled: bool = False  # put into a container on the instance (``self.buffer[key] = torch.empty(n)``), not stored as it


#: Directories whose modules are a test suite's or examples, not the library code a package imports.
_TESTS_AND_EXAMPLES = frozenset({"test", "tests", "testing", "example", "examples", "tutorials", "docs"})


class Imported:
    def __init__(self, context: Optional[ModuleContext], vocabulary: Vocabulary) -> None:
        self.context = context
        self.vocabulary = vocabulary
        #: ``stored_later`` by class: a module makes many instances of one class (torch's pattern tables
        #: call ``CallFunction(...)`` 1,425 times), and each answer resolves the class through the index
        self._stored_later: dict[str, list[ImportedStore]] = {}

    @property
    def knows_a_project(self) -> bool:
        """Whether there is a project to ask (a snippet, stdin or a file outside any package has none)."""
        return self.context is not None

    def class_kind(self, qualified: str) -> Optional[ImportedKind]:
        """The framework kind of instances of the project class ``qualified`` (relative names allowed)."""
        if self.context is None or qualified.startswith(_NO_PROJECT_CLASSES):
            return None  # ``str``, ``typing.Any``: asked of every annotation, and never a project's class
        absolute = self.context.absolute(qualified)
        final = self.context.index.resolve(absolute)
        if final != absolute and (kind := self.vocabulary.kind_of_type(final)) is not None:
            return ImportedKind(kind, f"`{absolute}` is `{final}`")  # a re-export: ``from .base import *``
        derives = False
        for base, owner in self.context.index.bases(absolute):
            derives = True
            kind = self.vocabulary.kind_of_type(self.context.index.resolve(base))
            if kind is not None:
                return ImportedKind(kind, f"`{owner}` derives from `{base}`")
        # ``Optimizer = TypeVar("Optimizer", Base, torch.optim.Optimizer)``: asked only of a name with no bases,
        # which a class deriving from others is not (a second look-up of every class cost 4% of a run over torch)
        for alias in () if derives else self.context.index.stands_for(absolute):
            final = self.context.index.resolve(alias)
            kind = self.vocabulary.kind_of_type(final) or (through.kind if final != absolute and (through := self.class_kind(final)) else None)
            if kind is not None:
                return ImportedKind(kind, f"`{absolute}` stands for `{alias}`")
        return None

    def holder(self, qualified: str, depth: int = 2) -> Optional[ImportedKind]:
        """A project class whose ``__init__`` stores a framework object (or an instance of another such class,
        ``depth`` levels down) on its instances, or that derives from an ecosystem class the shipped table
        says holds one (a data module deriving from ``pl.LightningDataModule``): they hold it. Asked only of
        classes with no framework base (``class_kind`` answers first). The kind is the class's own name; the
        reason says what it holds."""
        if depth < 0:
            return None
        absolute = self.context.absolute(qualified) if self.context is not None else qualified
        absolute = HOLDER_FACTORIES.get(absolute, absolute)  # ``pipeline(...)`` builds a ``Pipeline``
        known = self.vocabulary.holding(absolute)
        if known is not None:
            return ImportedKind(absolute.rpartition(".")[2], known)
        if self.context is None:
            return None
        short = absolute.rpartition(".")[2]
        for base, owner in self.context.index.bases(absolute):
            known = self.vocabulary.holding(self.context.index.resolve(base))
            if known is not None:
                return ImportedKind(short, f"`{owner.rpartition('.')[2]}` derives from `{base}`: {known}")
        found = self.context.index.holdings(absolute)
        if found is None:
            return None
        module, holdings = found
        for attribute, names, line in holdings:
            for name in names:
                kind = self._made_by(name, depth - 1, absolute)
                if kind is not None:
                    return ImportedKind(short, f"`{short}` holds {describe(kind)} (`self.{attribute}`, `{module}` line {line})")
        return None

    def stored_later(self, qualified: str) -> list[ImportedStore]:
        """The framework objects (or holders of them) the methods of the project class ``qualified`` store on
        an instance after ``__init__`` and never set back: what an instance kept for the process keeps after
        the work that needed it. Nothing for a name the project does not define. The class's own methods
        only: walking its bases for every module-level instance of a project class (torch makes 1,200 of
        them) summarised their modules, about half a percent of the lint over torch, DeepSpeed and
        transformers, for a shape no sweep has shown."""
        if self.context is None:
            return []
        absolute = self.context.absolute(qualified)
        if absolute not in self._stored_later:
            self._stored_later[absolute] = self._stored_later_by(self.context, absolute)
        return self._stored_later[absolute]

    def _stored_later_by(self, context: ModuleContext, absolute: str) -> list[ImportedStore]:
        located = context.index.stored_later(context.index.resolve(absolute))
        if located is None:
            return []
        module, stores = located
        found = []
        for attribute, names, line, method, handed, filled in stores:
            kind = next((k for name in names if (k := self._made_by(name)) is not None), None)
            if kind is not None:
                found.append(ImportedStore(module, absolute.rpartition(".")[2], method, attribute, line, kind, handed, filled))
        return found

    def _made_by(self, name: str, depth: int = 2, holder: str = "") -> Optional[str]:
        """The framework kind of what calling (or annotating with) the absolute ``name`` makes: a framework
        class or factory, a project class deriving from one or holding one (``depth`` levels down; not the
        ``holder`` that asks), the alternative constructors of those (``Net.from_pretrained``), and a project
        function that builds one (``self.net = pidinet()``, ``def pidinet(): return PiDiNet(60)``)."""
        owner, _, last = name.rpartition(".")
        if owner and (last.startswith("from_") or last == "load_from_checkpoint"):
            name = owner
        final = self.context.index.resolve(name) if self.context is not None else name
        kind = self.vocabulary.kind_of_call(final) or (through.kind if (through := self.class_kind(final)) else None)
        if kind is None and (built := self.built_kind(final, depth)) is not None:
            kind = built.kind
        return kind or (held.kind if final != holder and (held := self.holder(final, depth)) is not None else None)

    def kept_parameters(self, qualified: str) -> tuple[str, list[tuple[str, str, int, int]]]:
        """What the project class ``qualified``'s constructor keeps of what its caller hands it
        (``summaries.parameters_kept``), with the class's module; nothing for a name the project does not define."""
        found = self.context.index.kept_parameters(self.context.absolute(qualified)) if self.context is not None else None
        return found or ("", [])

    def compares_by_value(self, qualified: str) -> bool:
        """Whether instances of the project class ``qualified`` compare by value (``__eq__``/``__hash__``, a
        dataclass), in its own definition or a base's, in any module of the project."""
        return self.context is not None and self.context.index.compares_by_value(self.context.absolute(qualified))

    def keeps_created_instances(self, qualified: str) -> bool:
        """Whether the project class ``qualified``, used as a metaclass, keeps the instances it creates."""
        return self.context is not None and self.context.index.keeps_created_instances(self.context.absolute(qualified))

    def used_by_its_package(self) -> bool:
        """Whether the checked module is library code of a regular package (a package's ``__init__``, or a
        module another module of its directory imports): a ``__main__`` block there is a demo or a command,
        not the whole module."""
        return self.context is not None and self.context.index.used_by_its_package(self.context.name)

    def among_tests_or_examples(self) -> bool:
        """Whether the checked module belongs to a test suite or to examples, by its dotted name: a ``test_*``,
        ``*_test`` or ``conftest`` module, or one in a ``test``, ``tests``, ``testing``, ``example``,
        ``examples``, ``tutorials`` or ``docs`` package: a test's tables, or a demo's. (A directory without
        ``__init__.py`` is no package: its files are their own import root, wherever they sit.)"""
        parts = self.context.name.split(".") if self.context is not None else [""]
        return (
            parts[-1].startswith("test_") or parts[-1].endswith("_test") or parts[-1] == "conftest"
            or any(part in _TESTS_AND_EXAMPLES for part in parts[:-1])
        )

    def module_level_instance(self, qualified: str) -> Optional[tuple[str, str, int]]:
        """Where another project module binds ``qualified`` at import to an instance of a project class, kept
        for the process: (the class, absolute; the module; the line)."""
        return self.context.index.module_level_instance(self.context.absolute(qualified)) if self.context is not None else None

    def is_class(self, qualified: str) -> bool:
        """Whether ``qualified`` names a class of another project module (through re-exports)."""
        return self.context is not None and self.context.index.is_class(self.context.absolute(qualified))

    def is_cache_decorator(self, qualified: str) -> bool:
        """``functools.lru_cache``/``cache``, or a project function that applies one (a wrapper)."""
        if qualified in CACHE_DECORATORS:
            return True
        return self.context is not None and self.context.index.is_cache_wrapper(self.context.absolute(qualified))

    def returned_kind(self, qualified: str) -> Optional[ImportedKind]:
        """The kind a project function is annotated to return: ``def build() -> nn.Module``."""
        if self.context is None:
            return None
        absolute = self.context.absolute(qualified)
        returned = self.context.index.returned_type(absolute)
        if returned is None:
            return None
        kind = self.vocabulary.kind_of_type(returned)
        if kind is not None:
            return ImportedKind(kind, f"`{absolute}` returns `{returned}`")
        through = self.class_kind(returned)
        if through is not None:
            return ImportedKind(through.kind, f"`{absolute}` returns `{returned}`")
        holder = self.holder(returned)  # ``create_block_mask(...) -> BlockMask``, whose ``__init__`` keeps tensors
        return ImportedKind(holder.kind, f"`{absolute}` returns `{returned}`; {holder.why}") if holder else None

    def returned_tuple(self, qualified: str) -> Optional[tuple[Optional[ImportedKind], ...]]:
        """The kinds of the fixed tuple a project function is annotated to return: ``def curve(n) ->
        Tuple[torch.Tensor, torch.Tensor]`` makes ``order, inverse = curve(n)`` two tensors."""
        if self.context is None:
            return None
        absolute = self.context.absolute(qualified)
        elements = self.context.index.returned_tuple(absolute)
        if not elements:
            return None
        kinds = tuple(self.vocabulary.kind_of_type(element) if element else None for element in elements)
        spelled = ", ".join(element.rpartition(".")[2] or "?" for element in elements)
        found = tuple(ImportedKind(kind, f"`{absolute}` returns `Tuple[{spelled}]`") if kind else None for kind in kinds)
        return found if any(found) else None

    def built_kind(self, qualified: str, depth: int = 2) -> Optional[ImportedKind]:
        """What a project function that builds what it returns makes (``def load(): model = Net(); ...;
        return model``): a framework object or a holder of one, when the name it calls to build it is such a
        class, a framework factory, or (``depth`` levels down) another such function. Read from the last
        call of its derivation that makes one (``return torch.arange(n).unsqueeze(1) <= k``), when every
        step after it keeps that kind; else, a local it returns and prepares as a model (``model =
        build_segmentor(cfg)``, a registry nothing types; ``model.eval()``; ``return model``)."""
        if self.context is None or depth < 0:
            return None
        absolute = self.context.absolute(qualified)
        steps = self.context.index.built_type(absolute)
        derived = self._derived_kind(absolute, steps, depth, "returns") if steps is not None else None
        if derived is None:  # built by what nothing here types (a registry), then prepared as a model
            model = self.context.index.returned_model(absolute)
            return ImportedKind(MODULE, f"`{absolute}` returns `{model[0]}`, a model by its `{model[0]}.{model[1]}()` (line {model[2]})") if model else None
        return derived

    def filled_kind(self, qualified: str, position: int) -> Optional[ImportedKind]:
        """What a project function of another module stores into the container its caller passes at
        ``position`` (``summaries.filled_parameter``), when every store is a framework object of one kind it
        builds, read as ``built_kind`` reads what a function returns."""
        if self.context is None:
            return None
        absolute = self.context.absolute(qualified)
        found = self.context.index.fills(absolute)
        if found is None or found[0] != position:
            return None
        kinds = [self._derived_kind(absolute, steps, 2, "stores into it") for steps in found[1]]
        if not kinds or any(kind is None for kind in kinds) or len({kind.kind for kind in kinds}) > 1:  # type: ignore[union-attr]
            return None
        return kinds[0]

    def _derived_kind(self, absolute: str, steps: list[str], depth: int, verb: str) -> Optional[ImportedKind]:
        """The kind a derivation (``summaries.built_and_returned``'s steps) makes: read from the last call of
        it that makes one, when every step after it keeps that kind."""
        for position in range(len(steps) - 1, -1, -1):
            if position and not steps[position].startswith("("):
                continue  # a method, an operator or an index computes from what it is handed; it builds nothing
            made = self._built_by(absolute, steps[position].strip("()"), depth, computed=position < len(steps) - 1, verb=verb)
            if made is not None:
                return made if all(_keeps(made.kind, step) for step in steps[position + 1:]) else None
        return None

    def _built_by(self, absolute: str, callee: str, depth: int, computed: bool, verb: str) -> Optional[ImportedKind]:
        """What calling ``callee`` in the project function ``absolute`` makes, as ``built_kind`` reads it."""
        final = self.context.index.resolve(callee)  # type: ignore[union-attr]
        built = f"what `{callee.rpartition('.')[2]}(...)` builds"
        why = f"`{absolute}` {verb} {f'what it computes from {built}' if computed else built}"
        kind = self.vocabulary.kind_of_call(final) or (through.kind if (through := self.class_kind(final)) else None)
        if kind is not None:
            return ImportedKind(kind, why)
        inner = self.holder(final) or (self.built_kind(final, depth - 1) if final != absolute else None)
        return ImportedKind(inner.kind, f"{why}; {inner.why}") if inner is not None else None

    def container(self, qualified: str) -> Optional[ImportedContainer]:
        """A module-level or class-level container of another project module, imported here."""
        if self.context is None:
            return None
        found = self.context.index.container(self.context.absolute(qualified))
        return ImportedContainer(found[0], found[1], found[2], ContainerType(found[3])) if found is not None else None

    def keeper(self, qualified: str) -> Optional[ImportedKeeper]:
        """``Store.put`` / ``register``, imported from another project module, when it keeps an argument."""
        if self.context is None:
            return None
        absolute = self.context.absolute(qualified)
        found = self.context.index.keeper(absolute)
        if found is None and (known := self.vocabulary.keeper(absolute)) is not None:
            found = (*known, "")  # a package the linting environment lacks, from the shipped table
        if found is None:
            return None
        module, position, container, line, kind, decorator = found
        return ImportedKeeper(module, position, container, line, None if kind == "cache" else ContainerType(kind), decorator)

    def emptied_elsewhere(self, name: str) -> Optional[str]:
        """The module beside this one that empties this module's global ``name`` (``layers.registry.clear()``)."""
        if self.context is None:
            return None
        return self.context.index.emptied_nearby(f"{self.context.name}.{name}")

    def star_names(self, module: str) -> list[tuple[str, str]]:
        """The names ``from module import *`` binds (``module`` as written, possibly relative), each with
        what that module imported it as: a star import of a module that did ``import functools`` binds
        ``functools``."""
        return self.context.index.star_names(self.context.absolute(module)) if self.context is not None else []


NOWHERE = Imported(None, Vocabulary())


def _keeps(kind: str, step: str) -> bool:
    """Whether a step of a derivation (``summaries.built_and_returned``) keeps a tensor a tensor (an
    operator, an index, a method or a torch function that always returns one) or a model a model (an index
    into a container of modules, a method that returns the module, ``.to(device)``)."""
    functions, methods = tensor_valued()
    if kind == TENSOR:
        return step in (OPERATOR_STEP, INDEX_STEP) or step[1:] in methods or step.strip("()") in functions
    if kind == MODULE:
        return step == INDEX_STEP or step[1:] in MODULE_METHODS_RETURNING_SELF
    return False
