"""Run many differential programs in one interpreter and write what each printed, as JSON.

    python tests/differential_runner.py OUT.json PROGRAM.py [PROGRAM.py ...]

Each program is imported as its own module (``diffprog_<name>``, the same name on both sides of a
comparison, so reprs that name the module agree), with its own directory first on ``sys.path`` (a
program may be a small directory: ``main.py`` and sibling modules), and its ``main()`` called with
stdout captured. An exception escaping the import or ``main()`` ends its transcript with
``EXCEPTION: TypeName: message``. Modules the program imported from its own directory are forgotten
afterwards, so programs never see each other's siblings. torch and ``random`` are seeded before each
program; a garbage collection runs after each (the objects that exist before the first program, torch's,
are frozen out of the collector's walks: with them a collection costs 0.25 s).

Used by ``test_differential.py`` and ``test_generated_programs.py``: fresh interpreters with torch cost
about 2 s each, so each side of a comparison runs in one.
"""
from __future__ import annotations

import contextlib
import gc
import importlib.util
import io
import json
import os
import random
import sys
import warnings


def program_name(path: str) -> str:
    stem = os.path.splitext(os.path.basename(path))[0]
    if stem == "main":  # a directory program
        stem = os.path.basename(os.path.dirname(os.path.abspath(path)))
    return stem


def run(path: str) -> str:
    import torch

    name = f"diffprog_{program_name(path)}"
    directory = os.path.dirname(os.path.abspath(path))
    before = set(sys.modules)
    sys.path.insert(0, directory)
    captured = io.StringIO()
    try:
        with contextlib.redirect_stdout(captured), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            random.seed(0)
            torch.manual_seed(0)
            spec = importlib.util.spec_from_file_location(name, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            module.main()
    except Exception as error:  # noqa: BLE001 - the transcript records it
        message = str(error).strip().splitlines()
        captured.write(f"EXCEPTION: {type(error).__name__}: {message[0] if message else ''}\n")
    finally:
        sys.path.remove(directory)
        for added in set(sys.modules) - before:
            module_file = getattr(sys.modules[added], "__file__", None) or ""
            if added == name or os.path.abspath(module_file).startswith(directory + os.sep):
                del sys.modules[added]
        gc.collect()
    return captured.getvalue()


def main(argv: list[str]) -> int:
    out, programs = argv[0], argv[1:]
    # torch is imported once, before any program, then frozen: with torch loaded a full collection walks
    # about a million objects (0.25 s); programs collect often and only their own objects can become
    # garbage, so the collector skips everything that exists now
    importlib.import_module("torch")
    gc.collect()
    gc.freeze()
    transcripts = {path: run(path) for path in programs}
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(transcripts, handle, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
