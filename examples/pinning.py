"""A small module with DeepSpeed-style pinning globals: the shape of deepspeed/utils/debug.py <= 0.19.6.

Names of modules and parameters are recorded when the model is built, for debug messages. The dicts are
module-level and keyed by the objects themselves, so every module and parameter they have seen stays
alive until they are cleared: a submodule replaced after ``record_names`` is never freed.
"""
from torch import nn

# module and parameter objects -> their fully qualified names
module_names = {}
param_names = {}


def record_names(model: nn.Module) -> None:
    global module_names, param_names
    module_names = {module: name for name, module in model.named_modules()}
    param_names = {param: name for name, param in model.named_parameters()}


def clear_names() -> None:
    global module_names, param_names
    module_names = {}
    param_names = {}


def param_name(param: nn.Parameter) -> str:
    return param_names.get(param, "unknown")
