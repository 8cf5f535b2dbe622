"""The DeepSpeed proof's ``leak`` scenario (``benchmarks/deepspeed_scenarios.py``: extract the names of a
16-block model, then replace every block) run inside a census of ``deepspeed``, in this fresh interpreter,
against whichever ``deepspeed`` comes first on ``sys.path``. Prints one JSON line: the ``debug.py`` that
ran, the scenario's own result, and the census by container."""
from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import deepspeed_scenarios  # noqa: E402

from flake8_weakglobals.census.measure import census  # noqa: E402

MIB = 2**20

with census(["deepspeed"], test="leak") as report:
    result = deepspeed_scenarios.leak()
containers = [
    {
        "name": container.name,
        "confirms": str(container.confirms) if container.confirms else None,
        "mib": container.nbytes / MIB,
        "kinds": Counter(pin.kind for pin in container.pins),
        "pins_mib": sorted((pin.nbytes / MIB for pin in container.pins), reverse=True),
        "storages": sorted(container.storages),
    }
    for container in report.containers()
]
print(json.dumps({
    "debug_file": deepspeed_scenarios.debug.__file__, "leak": result, "containers": containers,
    "total_mib": report.nbytes / MIB, "report": report.lines(),
}))
