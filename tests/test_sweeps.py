"""The installed torch and deepspeed 0.19.6, every file: nothing raises, and the tools find exactly the
findings whose verdicts the README's "Accuracy" section records (a precision regression test). The
codemod's output on each flagged file is checked here independently of the codemod's own verification."""
from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import installed_package, pyflakes_messages
from flake8_weakglobals.rules.analyze_module import analyze
from flake8_weakglobals.index.project import context_for
from flake8_weakglobals.analysis.framework_types import Vocabulary, may_mention_framework

EXPECTED = {
    "torch": {
        # never emptied: reset_makefx_module_storage() is defined and called nowhere
        ("_higher_order_ops/invoke_leaf_function.py", 26, "WG008"),
        ("_subclasses/fake_tensor.py", 197, "WG004"),
        # intended: export's example bank, filled at import by each example's decorator, keeps every
        # ExportCase and its model (a dataclass field) for the life of the process, by design
        ("_export/db/case.py", 100, "WG008"),
        # the same bank's conflicting and rewritten cases, kept in lists the map makes per name (first look of
        # a map's entries made by its own fills): intended
        ("_export/db/case.py", 102, "WG008"),
        ("_export/db/case.py", 103, "WG007"),
        ("_utils.py", 276, "WG002"),
        ("_native/ops/foreach_mm/nvmath_impl.py", 16, "WG007"),  # intended: cuBLASLt workspaces per device and size
        # intended (first look of objects library code builds at import): a 16-entry FP4 decoding table, copied
        # to each caller's device on use
        ("_vendor/quack/blockscaled_gemm_utils.py", 293, "WG007"),
        # intended: caches of what the function makes from plain keys (a dummy GraphModule traced once; index
        # tensors per sparse layout, under a key that holds its tensor weakly, up to the LRU size)
        ("_inductor/loop_body.py", 42, "WG007"),
        ("sparse/_triton_ops.py", 940, "WG007"),
        ("ao/quantization/fx/utils.py", 250, "WG006"),
        # no longer reported (it was false): _local_tensor's _PROCESS_LOCAL_TENSOR_MODE is pushed in
        # LocalTensorMode.__enter__ and popped in its __exit__ through get_local_tensor_mode_list(), a getter
        # whose calls the analysis now follows as the container
        # true, minor: popped at the end of each coalescing block, but not in a finally, so a block that
        # raises leaves its ops (and their tensors) in the map
        ("distributed/distributed_c10d.py", 685, "WG008"),
        ("distributed/tensor/_collective_utils.py", 322, "WG006"),  # keyed by DeviceMesh, which holds its rank tensor
        # true: planners the map builds itself under a weak key, each holding the caller's mesh strongly, so
        # the weak key never dies (WG007 since a local bound to what the function builds counts as built)
        ("distributed/tensor/_redistribute.py", 639, "WG007"),
        # true, minor: an unbounded functools.cache keyed by DTensorSpec, a dataclass whose mesh field holds
        # the DeviceMesh (record fields read as holdings across modules, sweep 21's session)
        ("distributed/tensor/_redistribute.py", 1518, "WG006"),
        ("distributed/tensor/debug/_op_coverage.py", 15, "WG002"),
        # intended: one symmetric-memory workspace per process group, grown when too small; the tensor comes
        # from a call nothing types, known by the tensor-only methods called on it (3b2b752's first look)
        ("distributed/_symmetric_memory/__init__.py", 93, "WG007"),
        # torch.fx nodes hold their graph, and it its GraphModule (first look of that kind, all three true):
        # an unbounded functools.cache over collective nodes keeps every compiled graph with one
        ("_inductor/fx_passes/overlap_scheduling.py", 114, "WG006"),
        # keyed by the ShapeEnv, which holds fx nodes its _init stores (fx_node_cache): its cached methods keep
        # it after the compile that made it, up to 256 of them for lru_cache(256), every one for the two
        # unbounded ones, get_implications (6996) and constrain_symbol_range (8768). First look of WG006
        # counting any method's stores (sweep 15's session): the six others are new; true, as the two were
        ("fx/experimental/symbolic_shapes.py", 6996, "WG006"),
        # the same ShapeEnv, from another module: its events are records whose tracked_fakes hold fake tensors
        # (record fields read across modules, sweep 21's session); true, as the eight beside it
        ("fx/experimental/_size_hinting.py", 294, "WG006"),
        ("fx/experimental/symbolic_shapes.py", 7316, "WG006"),
        ("fx/experimental/symbolic_shapes.py", 7362, "WG006"),
        ("fx/experimental/symbolic_shapes.py", 7372, "WG006"),
        ("fx/experimental/symbolic_shapes.py", 7720, "WG006"),
        ("fx/experimental/symbolic_shapes.py", 8213, "WG006"),
        ("fx/experimental/symbolic_shapes.py", 8587, "WG006"),
        ("fx/experimental/symbolic_shapes.py", 8768, "WG006"),
        # false (first look of holders built by another module's class): the method cache keys on the
        # propagator, which holds a DecompShardingStrategy, which holds fake DeviceMeshes; but DTensor keeps one
        # propagator for the process anyway
        ("distributed/tensor/_sharding_prop.py", 579, "WG006"),
        # intended (first look of workspaces kept in slots): a dummy nested tensor on the meta device, made once
        ("nested/_internal/nested_tensor.py", 683, "WG007"),
    },
    "deepspeed": {
        ("inference/v2/allocator.py", 15, "WG003"),
        ("ops/transformer/inference/ds_attention.py", 18, "WG007"),
        ("ops/transformer/inference/ds_mlp.py", 16, "WG007"),
        ("ops/transformer/inference/op_binding/workspace.py", 59, "WG007"),
        ("ops/sparse_attention/matmul.py", 201, "WG007"),  # intended: a locks tensor per device, kept for reuse
        ("runtime/utils.py", 89, "WG007"),  # intended: graph_cache's norm buffers, kept for CUDA-graph replay
        ("runtime/zero/parameter_offload.py", 20, "WG002"),
        ("model_implementations/transformers/ds_transformer.py", 41, "WG012"),  # intended: a workspace every layer shares
        ("runtime/zero/partition_parameters.py", 726, "WG003"),  # intended: a buffer free_buffer() empties
        ("runtime/zero/partitioned_param_coordinator.py", 633, "WG006"),
        ("utils/debug.py", 12, "WG001"),
        ("utils/debug.py", 13, "WG001"),
        # intended (first look of holders built by another module's class): the shared CPU offload engine, built
        # on first use; reset() empties its maps, but its pinned CPU buffer pool stays for the process
        ("runtime/activation_checkpointing/checkpointing.py", 68, "WG012"),
        # intended (first look of the tensor-valued torch functions and methods torch's stubs declare): the
        # contiguous-checkpointing partitions, made with ``new_empty``, kept from forward until backward
        # rebinds both lists empty (``reset()`` in eval)
        ("runtime/activation_checkpointing/checkpointing.py", 50, "WG007"),
        ("runtime/activation_checkpointing/checkpointing.py", 53, "WG007"),
    },
}


@pytest.mark.parametrize("package", sorted(EXPECTED))
def test_every_file_of_the_package_is_analysed_without_error(package: str) -> None:
    root = installed_package(package)
    found, analysed, failures, skipped_with_findings = set(), 0, [], []
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue  # torch ships a few files in newer Python syntax
        try:
            findings = analyze(tree, source, Vocabulary(), context_for(path))
        except Exception as error:  # collected, so one run lists every failure
            failures.append(f"{path}: {error!r}")
            continue
        analysed += 1
        found |= {(path.relative_to(root).as_posix(), finding.line, finding.code) for finding in findings}
        if findings and not may_mention_framework(source, Vocabulary()):
            skipped_with_findings.append(path)
    assert failures == []
    assert skipped_with_findings == [], "the prefilter would have skipped files with findings"
    assert analysed > 500
    assert found == EXPECTED[package]


def flake8_targets(package: str, root: Path) -> list[Path]:
    """Each file that holds an expected finding. flake8's own checkers (pyflakes, pycodestyle) run on every file
    it is given, whatever --select says: over the directories that hold these files they cost half a minute of
    the suite, over all of torch four minutes on 2 cores. The test above already holds every file of both
    packages to exactly these findings; this one is about flake8's plugin path (loading, prefilter, noqa,
    selection), which these files exercise as well as the rest would."""
    return sorted({root / relative for relative, _, _ in EXPECTED[package]})


def test_flake8_over_both_packages_reports_exactly_these_and_nothing_else() -> None:
    roots = {package: installed_package(package) for package in EXPECTED}
    targets = [target for package, root in roots.items() for target in flake8_targets(package, root)]
    done = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "WG", "-j", "2", *map(str, targets)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1 and done.stderr == "", done.stderr  # 1: there are findings; no plugin failure
    found = {package: set() for package in EXPECTED}
    for line in done.stdout.splitlines():
        path, number, _, message = line.split(":", 3)
        package = next(name for name, root in roots.items() if Path(path).is_relative_to(root))
        found[package].add((Path(path).relative_to(roots[package]).as_posix(), int(number), message.split()[0]))
    assert found == EXPECTED




def test_the_codemod_on_every_flagged_file_compiles_converges_and_adds_no_pyflakes_message(tmp_path: Path) -> None:
    originals: dict[Path, str] = {}
    # with the module they star-import: the inline runtime reads what that star import binds
    beside = {"deepspeed": {"runtime/zero/partition_parameters.py", "__init__.py", "runtime/__init__.py", "runtime/zero/__init__.py"}}
    for package, findings in EXPECTED.items():
        for relative in sorted({path for path, _, _ in findings} | beside.get(package, set())):
            copy = tmp_path / package / relative
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(installed_package(package) / relative, copy)
            originals[copy] = copy.read_text()

    # --unsafe-fixes: every rewrite the codemod can make, WG006's caches included, must compile and converge
    done = subprocess.run([sys.executable, "-m", "fixes.apply", "--unsafe-fixes", "."], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 1 and done.stderr == "", done.stderr  # 1: some findings are left to fix by hand
    changed = {path.relative_to(tmp_path).as_posix() for path, text in originals.items() if path.read_text() != text}
    assert changed == {
        "deepspeed/utils/debug.py",
        # not parameter_offload.py: FWD_MODULE_STACK is read by position where a store may let go of a module
        # not torch/_utils.py: its tensors' list is left, since torch's own tree swaps and recomputes tensors
        # WG006: `Module` comes through a star import of the installed deepspeed, which the index now reads
        "deepspeed/runtime/zero/partitioned_param_coordinator.py",
        "torch/_subclasses/fake_tensor.py",
        "torch/ao/quantization/fx/utils.py",  # WG006: functools.cache becomes weak_cache
        "torch/_inductor/fx_passes/overlap_scheduling.py",  # WG006: functools.cache over fx nodes becomes weak_cache
        "torch/distributed/tensor/_collective_utils.py",  # WG006: a DeviceMesh (value equality) stays keyed as a dict keys it
        "torch/_higher_order_ops/invoke_leaf_function.py",  # WG008: _makefx_module_storage becomes a WeakValueMap
        "torch/_export/db/case.py",  # WG008 (intended, so a fix only --unsafe-fixes makes): a WeakValueMap
        "torch/distributed/tensor/_sharding_prop.py",  # WG006 on a method (an unsafe fix): weak_lru_cache
    }

    for path, before in originals.items():
        after = path.read_text()
        compile(after, str(path), "exec", dont_inherit=True)
        assert not pyflakes_messages(after) - pyflakes_messages(before), path
    snapshot = {path: path.read_bytes() for path in tmp_path.rglob("*.py")}
    again = subprocess.run([sys.executable, "-m", "fixes.apply", "--unsafe-fixes", "--check", "."], cwd=tmp_path, capture_output=True, text=True)
    assert again.returncode == 1 and "would fix 0 containers in 0 files" in again.stdout  # 1: the same left by hand
    assert {path: path.read_bytes() for path in tmp_path.rglob("*.py")} == snapshot
