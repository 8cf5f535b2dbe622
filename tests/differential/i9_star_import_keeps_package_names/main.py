"""Imports (issue 23, section 5): a rewritten module without `__all__` is star-imported by its package,
whose `__init__` has a `weak_cache` and a `WeakIdMap` of its own. The runtime's names are imported under
private names (`weak_cache as _weak_cache`), which a star import skips, so the package's own survive the
fix; imported under their public names, ours would replace them."""
# expect: fixed
# codemod: --runtime vendor --unsafe-fixes
import gc

from torch import nn

import toolkit


def main() -> None:
    print("package weak_cache:", toolkit.weak_cache(3))
    print("package WeakIdMap:", toolkit.WeakIdMap)
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    toolkit.record(model)
    print("size:", toolkit.size(model), toolkit.size(model))
    print("names:", [toolkit.names[m] for m in model.modules()])
    model[1] = nn.Identity()
    gc.collect()
    print("[gc] names after replacing a layer:", len(toolkit.names))
    # Each of the runtime's public names, read as an attribute: ``vars(toolkit)`` would read the package's
    # namespace whole, where its re-export of ``names`` sits, and no fix could be shown safe.
    probes = {
        "StrictWeakIdMap": lambda: toolkit.StrictWeakIdMap, "StrictWeakIdSet": lambda: toolkit.StrictWeakIdSet,
        "WeakIdList": lambda: toolkit.WeakIdList, "WeakIdSet": lambda: toolkit.WeakIdSet,
        "WeakValueMap": lambda: toolkit.WeakValueMap, "weak_lru_cache": lambda: toolkit.weak_lru_cache,
        "weak_shared_cache": lambda: toolkit.weak_shared_cache, "weak_shared_lru_cache": lambda: toolkit.weak_shared_lru_cache,
    }
    exported = []
    for name, probe in probes.items():
        try:
            probe()
        except AttributeError:
            continue
        exported.append(name)
    print("star-exported runtime names:", exported)
