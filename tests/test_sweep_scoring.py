"""How ``benchmarks/sweep.py`` decides that a recorded miss is now found: the recall figures in the docs rest
on it, so a rule that matched too much would inflate them."""
from __future__ import annotations

import importlib.util
import sys

from conftest import REPO

spec = importlib.util.spec_from_file_location("sweep", REPO / "benchmarks" / "sweep.py")
assert spec and spec.loader
sweep = importlib.util.module_from_spec(spec)
sys.modules["sweep"] = sweep  # dataclasses look their module up by name
spec.loader.exec_module(sweep)

MESSAGE = "module-level instance's list `rmse.preds` holds tensors (`torch.cat` takes only tensors, and it is passed whole at line 72) (also `exp_rmspe.preds`)"


def finding(name: str, message: str) -> object:
    return sweep.Finding("fastai/fastai", "fastai/metrics.py", 41, "WG002", name, message)


def miss(name: str, path: str = "fastai/metrics.py") -> dict[str, str]:
    return {"repo": "fastai/fastai", "path": path, "name": name}


def test_a_miss_recorded_as_an_instance_is_found_by_a_finding_on_its_state_or_naming_it_among_the_holders() -> None:
    found = finding("rmse.preds", MESSAGE)
    assert sweep.names_the_miss(found, miss("rmse"))
    assert sweep.names_the_miss(found, miss("exp_rmspe"))


def test_neither_a_prefix_of_the_name_nor_another_file_counts() -> None:
    found = finding("rmse.preds", MESSAGE)
    assert not sweep.names_the_miss(found, miss("rms"))
    assert not sweep.names_the_miss(found, miss("rmspe"))
    assert not sweep.names_the_miss(found, miss("rmse", path="fastai/learner.py"))
    assert not sweep.names_the_miss(finding("rmse.preds", "module-level list `rmse.preds` holds tensors"), miss("exp_rmspe"))


def test_a_singletons_state_is_its_classs_but_no_other_attribute_is_skipped() -> None:
    held = "module-level instance's dict `_tracker._by_name` holds `Info` objects as values (also `Tracker._instance._by_name`)"
    assert sweep.names_the_miss(finding("_tracker._by_name", held), miss("Tracker._by_name"))
    assert sweep.names_the_miss(finding("Tracker.get_instance().by_name", "dict `Tracker.get_instance().by_name`"), miss("Tracker.by_name"))
    assert sweep.names_the_miss(finding("Buffer().pool", "singleton's dict `Buffer().pool` holds tensors"), miss("Buffer.pool"))
    assert not sweep.names_the_miss(finding("Tracker.owner._by_name", "dict `Tracker.owner._by_name`"), miss("Tracker._by_name"))
