"""Every message names the line it describes (newcomer issue, item 3): one test per message shape, through
the real command line, asserting the exact text. Each "at line N" follows the words about line N."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

LINT = [sys.executable, "-m", "flake8_weakglobals.frontends.command", "--isolated"]

#: A 13-line-per-shape module: the evidence sits on one line, the fill on another.
SOURCE = '''\
import functools
import weakref

import torch
from torch import nn

by_parameter = {}
by_call_site = {}
by_hook = {}
by_method_use = {}
by_narrowing = []
by_built = {}
by_holder = []


def remember(
    tensor: torch.Tensor,
    name: str,
) -> None:
    by_parameter[tensor] = name


def _keep(item):
    by_call_site[item] = 1


def caller(model: nn.Module) -> None:
    _keep(model)


def on_forward(module, inputs, output):
    by_hook[module] = 1


def attach(model: nn.Module) -> None:
    model.register_forward_hook(on_forward)


def walk(thing):
    thing.named_modules()
    by_method_use[thing] = 1


def narrow(thing):
    if isinstance(thing, nn.Linear):
        by_narrowing.append(thing)


def build():
    layer = nn.Linear(2, 2)
    by_built[layer] = 1


class Trainer:
    def __init__(self, model: nn.Module) -> None:
        self.model = model


def register(trainer: Trainer) -> None:
    by_holder.append(trainer)


@functools.lru_cache(maxsize=None)
def cached(
    module: nn.Module,
):
    return module


def finalized(model: nn.Module) -> None:
    weakref.finalize(model, print, model)
'''

EXPECTED = [
    "m.py:7:1: WG001 module-level dict `by_parameter` is keyed by tensors (parameter `tensor: torch.Tensor` at line 17)",
    "m.py:8:1: WG001 module-level dict `by_call_site` is keyed by nn.Module objects (parameter `model: nn.Module` at line 27, passed as `item` at line 28)",
    "m.py:9:1: WG001 module-level dict `by_hook` is keyed by nn.Module objects (`module` of a hook registered with `register_forward_hook` at line 36)",
    "m.py:10:1: WG001 module-level dict `by_method_use` is keyed by nn.Module objects (`thing.named_modules()` is called at line 40)",
    "m.py:11:1: WG002 module-level list `by_narrowing` holds nn.Module objects (narrowed by `isinstance(thing, nn.Linear)` at line 45)",
    "m.py:12:1: WG001 module-level dict `by_built` is keyed by nn.Module objects (built by `nn.Linear(...)` at line 50)",
    "m.py:13:1: WG002 module-level list `by_holder` holds `Trainer` objects (parameter `trainer: Trainer` at line 59; "
    "`Trainer` holds nn.Module objects (`self.model`, line 56))",
    "m.py:63:2: WG006 `@functools.lru_cache` on `cached` caches calls keyed by nn.Module objects (parameter `module: nn.Module` at line 65)",
    "m.py:71:5: WG009 `weakref.finalize(model, ...)` keeps `model` alive: it is passed `model` itself at line 71, so it is never collected",
]


def test_each_message_shape_names_the_line_it_describes(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SOURCE)
    done = subprocess.run([*LINT, "m.py"], cwd=tmp_path, capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout.splitlines() == EXPECTED
    lines = SOURCE.splitlines()
    assert "tensor: torch.Tensor" in lines[16] and "nn.Linear(2, 2)" in lines[49] and "named_modules" in lines[39]
