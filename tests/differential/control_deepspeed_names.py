"""Control: DeepSpeed's debug.py shape. Module and parameter names recorded at engine start through
`global`, read by object, cleared by rebinding."""
# expect: fixed
import gc

import torch
from torch import nn

module_names = {}
param_names = {}


def debug_extract_module_and_param_names(model: nn.Module) -> None:
    global module_names, param_names
    module_names = {module: name for name, module in model.named_modules()}
    param_names = {param: name for name, param in model.named_parameters()}


def debug_module2name(module) -> str:
    if module in module_names:
        return module_names[module]
    return "unknown"


def debug_param2name(param) -> str:
    return param_names.get(param, "unknown")


def debug_clear() -> None:
    global module_names, param_names
    module_names = {}
    param_names = {}


def build() -> nn.Module:
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Sequential(nn.Linear(8, 8), nn.Tanh()), nn.Linear(8, 2))


def main() -> None:
    model = build()
    debug_extract_module_and_param_names(model)
    print("modules:", len(module_names), "params:", len(param_names))
    print("order:", list(module_names.values()))
    print("first layer:", debug_module2name(model[0]), debug_param2name(model[0].weight))
    print("nested:", debug_module2name(model[2][0]), debug_param2name(model[2][0].bias))
    print("stranger:", debug_module2name(nn.Linear(1, 1)), debug_param2name(nn.Parameter(torch.zeros(1))))
    print("keys are the model's:", all(any(m is k for k in module_names) for m in model.modules()))
    print("sorted params:", sorted(param_names.values()))
    print("items:", [(type(k).__name__, v) for k, v in module_names.items()][:4])
    # a head swap: the old head is no longer used by anyone
    model[3] = nn.Linear(8, 3)
    gc.collect()
    print("new head known:", debug_module2name(model[3]))
    print("[gc] module names after the swap:", len(module_names))
    print("[gc] param names after the swap:", len(param_names))
    debug_extract_module_and_param_names(model)
    print("after re-extract:", sorted(param_names[p] for p in model.parameters()))
    del model
    gc.collect()
    print("[gc] modules once the model is gone:", len(module_names))
    debug_clear()
    print("cleared:", len(module_names), len(param_names), not module_names)
