"""What the fix does for DeepSpeed 0.19.6's ``debug.py``, side by side in one run.

    python benchmarks/deepspeed_release.py [--quick]

Copies the installed deepspeed, rewrites the copy with ``python -m fixes.apply``, then runs each
measurement in a fresh interpreter against the original and the rewritten package: memory still resident
after replacing every block of a 64 MiB model, the time of one extract over 10,000 parameters, and of
1,000,000 ``debug_param2name`` lookups (best of 5), as rewritten/original ratios. ``--quick`` rewrites only
``deepspeed/utils/debug.py`` and times one extract and 10,000 lookups once: a smoke run, not a measurement.
"""
from __future__ import annotations

import argparse
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


def measure(scenarios: list[str], pythonpath: str | None) -> list[dict[str, Any]]:
    """The results of ``scenarios``, run one after another in one fresh interpreter."""
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    if pythonpath:
        environment["PYTHONPATH"] = pythonpath
    done = subprocess.run([sys.executable, str(SCENARIOS), *scenarios], capture_output=True, text=True, env=environment, check=True)
    return [json.loads(line) for line in done.stdout.strip().splitlines()[-len(scenarios):]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="debug.py alone, tiny timings: a smoke run")
    quick = parser.parse_args().quick
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        shutil.copytree(installed_package("deepspeed"), root / "deepspeed", ignore=shutil.ignore_patterns("__pycache__"))
        target = "deepspeed/utils/debug.py" if quick else "deepspeed"
        subprocess.run([sys.executable, "-m", "fixes.apply", "-q", target], cwd=root, check=True)
        # each measurement in an interpreter of its own; a smoke run shares one per variant
        runs = [["leak", "quick_timing"]] if quick else [["leak"], ["timing"]]
        results = {
            variant: dict(zip(("leak", "timing"), (result for scenarios in runs for result in measure(scenarios, path))))
            for variant, path in (("original", None), ("rewritten", str(root)))
        }
    base = results["original"]["timing"]
    version = importlib.metadata.version("deepspeed")
    print(f"DeepSpeed {version} deepspeed/utils/debug.py, Python {sys.version.split()[0]}, " + ("one run (a smoke run)" if quick else "best of 5"))
    print(f"| variant | replaced | still resident | one extract ({base['parameters']:,} params) | {base['lookups']:,} debug_param2name |")
    print("|---|---|---|---|---|")
    for variant, result in results.items():
        leak, timing = result["leak"], result["timing"]
        extract = f"{timing['extract_s'] * 1000:.1f} ms ({timing['extract_s'] / base['extract_s']:.2f}x)"
        lookup = f"{timing['lookup_s'] * 1000:.0f} ms ({timing['lookup_s'] / base['lookup_s']:.2f}x)"
        resident = f"{leak['resident_mib']:.1f} MiB ({leak['alive']}/{leak['blocks']} tensors)"
        print(f"| {variant} | {leak['replaced_mib']:.1f} MiB | {resident} | {extract} | {lookup} |")


if __name__ == "__main__":
    main()
