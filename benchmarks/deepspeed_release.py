"""What the fix does for DeepSpeed 0.19.6's ``debug.py``, side by side in one run.

    python benchmarks/deepspeed_release.py

Copies the installed deepspeed, rewrites the copy with ``python -m fixes.apply``, then runs each
measurement in a fresh interpreter against the original and the rewritten package: memory still resident
after replacing every block of a 64 MiB model, the time of one extract over 10,000 parameters, and of
1,000,000 ``debug_param2name`` lookups (best of 5), as rewritten/original ratios.
"""
from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import installed_package

SCENARIOS = Path(__file__).with_name("deepspeed_scenarios.py")


def measure(scenario: str, pythonpath: str | None) -> dict[str, Any]:
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    if pythonpath:
        environment["PYTHONPATH"] = pythonpath
    done = subprocess.run([sys.executable, str(SCENARIOS), scenario], capture_output=True, text=True, env=environment, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        shutil.copytree(installed_package("deepspeed"), root / "deepspeed", ignore=shutil.ignore_patterns("__pycache__"))
        subprocess.run([sys.executable, "-m", "fixes.apply", "-q", "deepspeed"], cwd=root)
        results = {
            variant: {scenario: measure(scenario, path) for scenario in ("leak", "timing")}
            for variant, path in (("original", None), ("rewritten", str(root)))
        }
    base = results["original"]["timing"]
    version = importlib.metadata.version("deepspeed")
    print(f"DeepSpeed {version} deepspeed/utils/debug.py, Python {sys.version.split()[0]}, best of 5")
    print("| variant | replaced | still resident | one extract (10,000 params) | 1,000,000 debug_param2name |")
    print("|---|---|---|---|---|")
    for variant, result in results.items():
        leak, timing = result["leak"], result["timing"]
        extract = f"{timing['extract_s'] * 1000:.1f} ms ({timing['extract_s'] / base['extract_s']:.2f}x)"
        lookup = f"{timing['lookup_s'] * 1000:.0f} ms ({timing['lookup_s'] / base['lookup_s']:.2f}x)"
        resident = f"{leak['resident_mib']:.1f} MiB ({leak['alive']}/{leak['blocks']} tensors)"
        print(f"| {variant} | {leak['replaced_mib']:.1f} MiB | {resident} | {extract} | {lookup} |")


if __name__ == "__main__":
    main()
