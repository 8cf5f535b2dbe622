"""What counts as a framework object: torch's modules, parameters and tensors, plus user-named extras.

Evidence is always structural: a type in an annotation, a constructor call, an iteration method such as
``named_parameters()``, a hook signature. A variable's name alone is never evidence.
"""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

MODULE = "module"
PARAMETER = "parameter"
TENSOR = "tensor"
#: Objects that hold tensors they do not own: an optimizer holds its parameters (``param_groups``), a
#: learning-rate scheduler its optimizer. What keeps one alive keeps those alive.
OPTIMIZER = "optimizer"
SCHEDULER = "scheduler"
#: ``torch.fx`` graphs and their nodes: a node reaches its graph, a graph its ``owning_module`` (the whole
#: ``GraphModule``), and a node's ``meta["val"]`` holds tensors.
FX_GRAPH = "fx graph"
#: A module's bound method (``model.forward``): a new object on each access that holds its module
BOUND_METHOD = "bound method"
#: A caught exception: its ``__traceback__`` holds the frames between the handler and the raise, with their
#: locals (the model and the batch a failing step was given)
EXCEPTION = "exception"
#: What ``nn.Module`` defines that a module hands out as a bound method (its public methods): an attribute of
#: a module by one of these names is a method, not a submodule, parameter or plain value
MODULE_METHODS = frozenset(
    "forward __call__ register_forward_hook register_forward_pre_hook register_full_backward_hook "
    "register_full_backward_pre_hook register_backward_hook register_buffer register_parameter register_module "
    "add_module state_dict load_state_dict parameters named_parameters buffers named_buffers children "
    "named_children modules named_modules train eval zero_grad to cuda cpu half float double bfloat16 apply "
    "requires_grad_ get_submodule get_parameter get_buffer extra_repr share_memory".split()
)

#: Iteration methods of ``nn.Module``: the kind they yield, and whether they yield ``(name, object)`` pairs.
ITERATION_METHODS: dict[str, tuple[str, bool]] = {
    "modules": (MODULE, False),
    "children": (MODULE, False),
    "named_modules": (MODULE, True),
    "named_children": (MODULE, True),
    "parameters": (PARAMETER, False),
    "named_parameters": (PARAMETER, True),
    "buffers": (TENSOR, False),
    "named_buffers": (TENSOR, True),
}

#: Hook registrations whose hook receives a module first (methods of modules, and the global family).
MODULE_HOOK_REGISTRARS = frozenset(
    {
        "register_forward_hook",
        "register_forward_pre_hook",
        "register_full_backward_hook",
        "register_full_backward_pre_hook",
        "register_backward_hook",
        "register_module_forward_hook",
        "register_module_forward_pre_hook",
        "register_module_full_backward_hook",
        "register_module_full_backward_pre_hook",
        "register_module_backward_hook",
    }
)
#: Hook registrations on tensors: the hook receives a tensor (the gradient, or the parameter itself).
TENSOR_HOOK_REGISTRARS = frozenset({"register_hook", "register_post_accumulate_grad_hook"})

#: torch functions whose first argument is a sequence of tensors: a container passed whole to one holds tensors.
TENSOR_SEQUENCE_CALLS = frozenset(
    f"torch.{name}" for name in "cat concat concatenate stack vstack hstack dstack row_stack column_stack".split()
)

_PARAMETER_TYPES = frozenset(
    {
        "torch.nn.Parameter",
        "torch.nn.parameter.Parameter",
        "torch.nn.UninitializedParameter",
        "torch.nn.parameter.UninitializedParameter",
    }
)
#: The legacy typed tensors (``torch.LongTensor``, ``torch.cuda.FloatTensor``), as annotations in the wild
#: still spell tensors; ``dir(torch)`` of torch 2.13 lists these ten.
_LEGACY_TENSORS = "BFloat16 Bool Byte Char Double Float Half Int Long Short".split()
_TENSOR_TYPES = frozenset(
    {"torch.Tensor", "torch._tensor.Tensor", "torch.nn.Buffer", "torch.nn.parameter.Buffer", "torch.nn.UninitializedBuffer"}
    | {f"{module}.{dtype}Tensor" for module in ("torch", "torch.cuda") for dtype in _LEGACY_TENSORS}
)
#: torch's creation ops, random sampling and spectral windows (the sections of torch's reference that make a
#: new tensor), with ``cat``, ``stack`` and the ``Tensor`` constructor.
_TENSOR_FACTORIES = frozenset(
    f"torch.{name}"
    for name in (
        "zeros ones empty full rand randn randint randperm arange range linspace logspace eye tensor as_tensor "
        "asarray from_numpy frombuffer from_file from_dlpack sparse_coo_tensor sparse_csr_tensor complex polar "
        "zeros_like ones_like empty_like full_like rand_like randn_like randint_like empty_strided "
        "normal bernoulli multinomial poisson tril_indices triu_indices "
        "bartlett_window blackman_window hamming_window hann_window kaiser_window cat stack Tensor"
    ).split()
)
#: torch's loaders, and what they return: ``torch.load`` what ``torch.save`` wrote (tensors, or a state dict
#: of them), ``torch.jit.load`` a ``ScriptModule``. Not ``torch.hub.load``: an entry point may build a
#: tokenizer as well as a model (sweep 13: RETRO-pytorch loads both through it).
_LOADERS = {"torch.load": TENSOR, "torch.serialization.load": TENSOR, "torch.jit.load": MODULE}
#: Parts of ``torch.nn`` whose capitalised names are not modules (enums, masks, packed sequences).
_NOT_MODULES = ("torch.nn.utils.", "torch.nn.functional.", "torch.nn.init.", "torch.nn.attention.", "torch.nn.parameter.")
#: torch's modules outside ``torch.nn``: what ``symbolic_trace``, ``torch.jit.script`` and ``torch.compile``
#: return, under their public and defining names.
_MODULES_ELSEWHERE = frozenset(
    {
        "torch.fx.GraphModule", "torch.fx.graph_module.GraphModule", "torch.jit.ScriptModule",
        "torch.jit.RecursiveScriptModule", "torch.jit._script.ScriptModule", "torch.jit._script.RecursiveScriptModule",
        "torch._dynamo.eval_frame.OptimizedModule",
    }
)
_FX_GRAPH_TYPES = frozenset({"torch.fx.Node", "torch.fx.node.Node", "torch.fx.Graph", "torch.fx.graph.Graph"})

_DESCRIPTIONS = {
    MODULE: "nn.Module objects", PARAMETER: "nn.Parameter objects", TENSOR: "tensors",
    OPTIMIZER: "optimizers holding their parameters", SCHEDULER: "LR schedulers holding their optimizer",
    FX_GRAPH: "torch.fx nodes or graphs holding their GraphModule",
    BOUND_METHOD: "bound methods holding their nn.Module",
    EXCEPTION: "exceptions whose tracebacks hold their frames' modules and tensors",
}


def describe(kind: str) -> str:
    """How a message names objects of ``kind``: ``nn.Module objects``, ``tensors``, ```mylib.Node` objects``."""
    return _DESCRIPTIONS.get(kind, f"`{kind}` objects")


def compares_by_value(kind: str) -> bool:
    """Whether ``==`` on such objects returns a tensor, which breaks ``weakref.WeakKeyDictionary`` lookups."""
    return kind in (TENSOR, PARAMETER)


ECOSYSTEM_TABLE = Path(__file__).with_name("ecosystem_classes.json")
#: transformers' thousands of concrete model classes, left out of the table, by the library's naming
#: convention: ``T5EncoderModel``, ``BertForMaskedLM``, and the ``AutoModel*`` factories whose
#: ``from_pretrained`` builds one; never its TensorFlow and Flax twins (``TFBertModel``), nor its tokenizers,
#: configs and processors (``AutoTokenizer``, ``BertConfig``), whose names end otherwise.
_TRANSFORMERS_MODEL = re.compile(r"(?!TF[A-Z]|Flax[A-Z])[A-Z]\w*(?:Model|For[A-Z]\w*)")
#: diffusers' pipelines, left out of the table too: each holds the modules it is built from (its
#: ``__init__`` hands them to ``register_modules``, which sets each as an attribute, where the table looks
#: for ``self.x = ...``): ``StableDiffusionPipeline``, ``FluxPipeline``, the ``AutoPipelineFor*`` factories;
#: never the Flax and ONNX twins, whose weights are not torch modules.
_DIFFUSERS_PIPELINE = re.compile(r"(?!Flax[A-Z]|Onnx[A-Z])[A-Z]\w*Pipeline|AutoPipelineFor[A-Z]\w*")
#: torchaudio's packages whose classes are all modules (``MelSpectrogram``, ``Resample``, ``Conformer``): a
#: memo of transforms per sample rate keeps modules, with or without torchaudio installed.
_TORCHAUDIO_MODULES = ("torchaudio.transforms.", "torchaudio.models.")
#: The ecosystem's functions that build one of its holders: ``transformers.pipeline(task, model=...)``
#: loads the model and returns the ``Pipeline`` that holds it.
HOLDER_FACTORIES = {"transformers.pipeline": "transformers.Pipeline", "transformers.pipelines.pipeline": "transformers.Pipeline"}


@functools.lru_cache(maxsize=1)
def ecosystem() -> dict[str, dict[str, Any]]:
    """The shipped table of the ecosystem's well-known classes (``derive_ecosystem.py`` writes it from the real
    packages; ``derived_from`` says which versions): their kinds, the classes that hold framework objects,
    and the singletons' methods that keep an argument for the process. Read on first use; an unreadable
    table only means knowing less."""
    try:
        table = json.loads(ECOSYSTEM_TABLE.read_text(encoding="utf-8"))
        return {
            "kinds": dict(table["kinds"]), "holders": dict(table["holders"]), "keepers": dict(table["keepers"]),
            "packages": dict(table["derived_from"]),
        }
    except (OSError, ValueError, KeyError, TypeError):
        return {"kinds": {}, "holders": {}, "keepers": {}, "packages": {}}


TENSOR_VALUED_TABLE = Path(__file__).with_name("torch_tensor_valued.json")


@functools.lru_cache(maxsize=1)
def tensor_valued() -> tuple[frozenset[str], frozenset[str]]:
    """The torch functions (qualified, ``torch.log2``) and ``Tensor`` methods (``clamp_max``) that always
    return a tensor, as torch's stubs declare them (``derive_torch_signatures.py`` writes the table). Read on
    first use; an unreadable table only means knowing less."""
    try:
        table = json.loads(TENSOR_VALUED_TABLE.read_text(encoding="utf-8"))
        return frozenset(f"torch.{name}" for name in table["functions"]), frozenset(table["methods"])
    except (OSError, ValueError, KeyError, TypeError):
        return frozenset(), frozenset()


def tensor_results() -> frozenset[str]:
    """The torch functions (qualified, ``torch.svd``) that return a tuple of tensors they compute (one of
    torch's ``return_types``), from the same table; empty if it cannot be read."""
    try:
        return frozenset(f"torch.{name}" for name in json.loads(TENSOR_VALUED_TABLE.read_text(encoding="utf-8"))["results"])
    except (OSError, ValueError, KeyError, TypeError):
        return frozenset()


@dataclass(frozen=True)
class Vocabulary:
    """The framework types: torch's, the ecosystem's well-known classes (Lightning, transformers, diffusers,
    Megatron, ... from the shipped table, for when those distributions are not installed where the linter
    runs), ``extra-module-bases`` (classes whose subclasses are modules) and ``extra-types`` (classes whose
    instances count as framework objects of their own kind)."""

    extra_types: frozenset[str] = frozenset()
    module_bases: frozenset[str] = frozenset()
    with_ecosystem: bool = True  # off only to derive the table itself

    def kind_of_type(self, qualified: str) -> Optional[str]:
        """The kind of instances of the class named ``qualified``, or None if it is not a framework type."""
        if qualified in self.extra_types:
            return qualified
        if qualified in self.module_bases:
            return MODULE
        if qualified in _PARAMETER_TYPES:
            return PARAMETER
        if qualified in _TENSOR_TYPES:
            return TENSOR
        last = qualified.rpartition(".")[2]
        if qualified == "torch.nn.Module" or (
            qualified.startswith(("torch.nn.", "torch.ao.nn.")) and not qualified.startswith(_NOT_MODULES) and last[:1].isupper()
        ) or qualified == "torch.optim.swa_utils.AveragedModel" or qualified in _MODULES_ELSEWHERE:
            return MODULE
        if qualified in _FX_GRAPH_TYPES:
            return FX_GRAPH
        if qualified.startswith(("torch.optim.lr_scheduler.", "torch.optim.swa_utils.")) and last.lstrip("_")[:1].isupper():
            return SCHEDULER  # LRScheduler, _LRScheduler, ReduceLROnPlateau, SWALR, ...
        if qualified.startswith("torch.optim.") and last[:1].isupper():
            return OPTIMIZER  # Optimizer, torch.optim.adam.Adam, SGD, ...
        if not self.with_ecosystem or "." not in qualified:
            return None
        if qualified.startswith("transformers.") and _TRANSFORMERS_MODEL.fullmatch(last):
            return MODULE
        if qualified.startswith(_TORCHAUDIO_MODULES) and last[:1].isupper():
            return MODULE
        return ecosystem()["kinds"].get(qualified)

    def holding(self, qualified: str) -> Optional[str]:
        """What instances of the ecosystem class ``qualified`` hold (``transformers.Trainer``: its model), from
        the shipped table."""
        if not self.with_ecosystem:
            return None
        known = ecosystem()["holders"].get(qualified)
        last = qualified.rpartition(".")[2]
        if known is None and qualified.startswith("diffusers.") and _DIFFUSERS_PIPELINE.fullmatch(last):
            return f"`{last}` holds nn.Module objects (the components it registers)"
        return known

    def keeper(self, qualified: str) -> Optional[tuple[str, int, str, int, str]]:
        """What the ecosystem singleton's method ``qualified`` keeps of its arguments, from the shipped table
        (``bitsandbytes.optim.GlobalOptimManager.get_instance().register_module_override`` keeps its
        first): the module defining the container, the argument's position, the container, its line, and
        its ContainerType value."""
        if not self.with_ecosystem:
            return None
        found = ecosystem()["keepers"].get(qualified)
        return tuple(found) if found is not None else None  # type: ignore[return-value]

    def kind_of_call(self, qualified: str) -> Optional[str]:
        """The kind of object a call to ``qualified`` returns: a framework class or a tensor factory."""
        if qualified in _TENSOR_FACTORIES:
            return TENSOR
        return _LOADERS.get(qualified) or self.kind_of_type(qualified)


@functools.lru_cache(maxsize=8)
def _prefilter(extra_types: frozenset[str], module_bases: frozenset[str]) -> tuple[re.Pattern[str], ...]:
    """One search per word, each led by its literal: ``re`` then skips to each occurrence of the literal.
    A single alternation was tried at every character of a file that names none of them (2.6 s over the
    3,000 files of the standard library, 0.2 s as single searches)."""
    words = [*(rf"{method}\s*\(" for method in ("modules", "parameters", "buffers", "children")), r"register_\w*hook", "lru_cache", r"import \*", r"global\s"]
    words.extend(re.escape(qualified.rpartition(".")[2]) for qualified in sorted(extra_types | module_bases))
    for package in sorted(ecosystem()["packages"]):  # a LightningModule file may never name torch
        words.extend((rf"import {package}\b", rf"from {package}\b"))
    return tuple(re.compile(word) for word in words)


def may_mention_framework(source: str, vocabulary: Vocabulary) -> bool:
    """A cheap text test: a module that names none of these cannot hold evidence, so it is not analysed.
    ``lru_cache``, star imports and ``global`` statements let through files whose evidence comes from other
    project modules (an app that loads a project's detector on first use: ``global model; from
    annotator.hed import HEDdetector; model = HEDdetector()``, and never names torch).

    flake8 runs every installed plugin on every file, so this is what the plugin costs most files.
    """
    return "torch" in source or any(word.search(source) for word in _prefilter(vocabulary.extra_types, vocabulary.module_bases))
