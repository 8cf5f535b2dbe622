"""WG006's fix decision, one behaviour per line: which cached functions the codemod rewrites, and the reason
it gives for each one it leaves (``flake8_weakglobals/rules/cache_fix.py``)."""
from __future__ import annotations

import ast
from typing import Optional

import pytest

from flake8_weakglobals.rules.analyze_module import analyze

HEAD = "import functools\nfrom typing import Tuple\nimport torch\nfrom torch import nn\n"


def verdict(body: str) -> Optional[str]:
    """The WG006 finding's ``fix_reason`` (None: fixed) for a module of ``HEAD`` + ``body``."""
    source = HEAD + body
    findings = [finding for finding in analyze(ast.parse(source), source) if finding.code == "WG006"]
    assert len(findings) == 1, findings
    return findings[0].fix_reason


@pytest.mark.parametrize(
    "body",
    [
        "@functools.cache\ndef f(m: nn.Module): ...\n",
        "class R(nn.Module):\n    @functools.lru_cache(maxsize=4)\n    def f(self, n: int): ...\n",
        "class R(nn.Module):\n    @functools.lru_cache\n    def f(self, x: torch.Tensor): ...\n",  # held per instance
        "class R:\n    @staticmethod\n    @functools.cache\n    def f(t: torch.Tensor): ...\n",
        "class R(nn.Module):\n    @functools.cache\n    def f(self): ...\nprint(R().f.__func__, R().f.__self__)\n",  # a bound method
        "@functools.cache\ndef f(m: nn.Module): ...\n"
        "def g(m):\n    f.cache_clear()\n    print(f.cache_info(), f.__wrapped__)\n    return f(m)\n",
    ],
)
def test_fixed(body: str) -> None:
    assert verdict(body) is None


@pytest.mark.parametrize(
    ("decorator", "replacement"),
    [("functools.lru_cache(maxsize=None)", "weak_shared_lru_cache"), ("functools.cache", "weak_shared_cache")],
)
def test_a_long_lived_object_cached_on_modules_shares_one_weak_cache(decorator: str, replacement: str) -> None:
    """A per-instance cache would keep the submodules as long as the coordinator: the shared form lets them go."""
    source = HEAD + f"class Coordinator:\n    @{decorator}\n    def release(self, submodule: nn.Module, step: int): ...\n"
    finding = next(finding for finding in analyze(ast.parse(source), source) if finding.code == "WG006")
    assert finding.fixable and finding.runtime_names == {replacement} and finding.edits[0].name == replacement


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("class R(nn.Module):\n    def __eq__(self, o): ...\n    @functools.cache\n    def f(self): ...\n", "defines `__eq__`"),
        ("@functools.cache\ndef f(ts: Tuple[torch.Tensor, torch.Tensor]): ...\n", "is a tuple, which cannot be weakly"),
        ("@functools.cache\ndef f(m: nn.Module): ...\nassert f(nn.ReLU()) is not None\n", "compared with `is` (line 7)"),
        ("@functools.cache\ndef f(m: nn.Module): ...\nhooks = [f]\n", "passed elsewhere (`[f]`, line 7)"),
        ("@functools.cache\ndef f(m: nn.Module): ...\ng = f.cache_info\n", "its `cache_info` is passed elsewhere"),
        ("class R(nn.Module):\n    @functools.cache\n    def f(self): ...\nprint(R().f.__code__)\n", "uses `.__code__`"),
        ("class R(nn.Module):\n    @functools.cache\n    async def f(self): ...\n", "coroutine function"),
        ("def weak_cache(f): ...\n@functools.cache\ndef f(m: nn.Module): ...\n", "already defines its own `weak_cache`"),
        ("def memo(f):\n    return functools.lru_cache(maxsize=None)(f)\n@memo\ndef f(m: nn.Module): ...\n", "through `memo`"),
        ("def _f(m: nn.Module): ...\nf = functools.lru_cache(maxsize=8)(_f)\n", "made by a call, bound to `f`"),
    ],
)
def test_left_with_its_reason(body: str, reason: str) -> None:
    assert reason in (verdict(body) or "")
