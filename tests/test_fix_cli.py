"""``python -m fixes.apply`` as users run it: a subprocess on real files."""
from __future__ import annotations

import difflib
import io
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import flake8_weakglobals
from conftest import PINNING, fixed, installed_package, readme_block
from test_interrupt import running

# Evidence from a TYPE_CHECKING import: the module runs without torch (and, once vendored, without us).
PORTABLE = (
    "from __future__ import annotations\n\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
    "    from torch import nn\n\nnames = {}\n\n\ndef add(module: nn.Module) -> None:\n    names[module] = 1\n"
)


def fix(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "fixes.apply", *arguments], capture_output=True, text=True, cwd=cwd, env=environment
    )


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# --- dry runs and exit codes ---------------------------------------------------------------------------


def test_diff_prints_a_unified_diff_and_writes_nothing(tmp_path: Path) -> None:
    module = write(tmp_path / "pins.py", PINNING)
    done = fix("--diff", "--runtime", "import", "pins.py", cwd=tmp_path)
    assert done.returncode == 1
    assert "--- a/pins.py\n+++ b/pins.py\n" in done.stdout
    assert "-names = {}\n+names = _WeakIdMap()\n" in done.stdout
    assert "+from flake8_weakglobals.runtime import WeakIdMap as _WeakIdMap\n" in done.stdout
    assert module.read_text() == PINNING


def test_check_exits_1_when_changes_are_needed_and_0_once_fixed(tmp_path: Path) -> None:
    module = write(tmp_path / "pins.py", PINNING)
    assert fix("--check", "pins.py", cwd=tmp_path).returncode == 1
    assert module.read_text() == PINNING and not (tmp_path / "_weakglobals_runtime.py").exists()
    done = fix("pins.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "pins.py: WG001 names" in done.stdout and "fixed 1 container in 1 file" in done.stdout
    assert fix("--check", "pins.py", cwd=tmp_path).returncode == 0


def test_findings_left_to_fix_by_hand_exit_1_with_the_reason(tmp_path: Path) -> None:
    write(tmp_path / "models.py", "import pickle\nfrom torch import nn\n\nmodels = []\n\n\ndef add(m: nn.Module):\n    models.append(m)\n    pickle.dumps(models)\n")
    done = fix("models.py", cwd=tmp_path)
    assert done.returncode == 1
    assert "models.py:4:1: WG002 models left as is: it is serialized with `pickle.dumps()`" in done.stdout


def test_exit_non_zero_on_fix(tmp_path: Path) -> None:
    write(tmp_path / "pins.py", PINNING)
    assert fix("--exit-non-zero-on-fix", "pins.py", cwd=tmp_path).returncode == 1
    assert fix("--exit-non-zero-on-fix", "pins.py", cwd=tmp_path).returncode == 0


def test_an_empty_file_list_is_a_clean_exit(tmp_path: Path) -> None:
    write(tmp_path / "README.txt", "not python\n")
    for arguments in ((), (".",)):
        done = fix(*arguments, cwd=tmp_path)
        assert done.returncode == 0 and done.stderr == ""


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert fix("--select", "E501", ".", cwd=tmp_path).returncode == 2
    missing = fix("no_such_file.py", cwd=tmp_path)
    assert missing.returncode == 2 and "no_such_file.py: no such file or directory" in missing.stderr
    assert fix("--runtime", "elsewhere", ".", cwd=tmp_path).returncode == 2


# --- what is and is not rewritten ----------------------------------------------------------------------


def test_noqa_silenced_findings_are_never_fixed(tmp_path: Path) -> None:
    silenced = PINNING.replace("names = {}", "names = {}  # noqa: WG001")
    module = write(tmp_path / "pins.py", silenced)
    done = fix("pins.py", cwd=tmp_path)
    assert (done.returncode, module.read_text()) == (0, silenced)


def test_select_and_ignore(tmp_path: Path) -> None:
    source = PINNING + "seen = set()\n\n\ndef see(module: nn.Module):\n    seen.add(module)\n"
    module = write(tmp_path / "pins.py", source)
    assert fix("--select", "WG002", "--runtime", "import", "pins.py", cwd=tmp_path).returncode == 0
    assert "names = {}" in module.read_text() and "seen = _WeakIdSet()" in module.read_text()
    module.write_text(source)
    assert fix("--ignore", "WG002", "--runtime", "import", "pins.py", cwd=tmp_path).returncode == 0
    assert "names = _WeakIdMap()" in module.read_text() and "seen = set()" in module.read_text()


def test_settings_from_pyproject_and_their_errors(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.weakglobals]\nselect = ["WG002"]\nruntime = "import"\n')
    module = write(tmp_path / "pins.py", PINNING)
    assert fix("pins.py", cwd=tmp_path).returncode == 0 and module.read_text() == PINNING
    assert fix("--select", "WG001", "pins.py", cwd=tmp_path).returncode == 0, "flags override the file"
    assert "from flake8_weakglobals.runtime import WeakIdMap" in module.read_text()
    write(tmp_path / "pyproject.toml", '[tool.weakglobals]\nextra-types = ["not a name"]\n')
    done = fix("pins.py", cwd=tmp_path)
    assert done.returncode == 2 and "pyproject.toml: [tool.weakglobals] extra-types" in done.stderr
    assert "Traceback" not in done.stderr


# --- where the runtime comes from ----------------------------------------------------------------------


def test_inline_mode_the_default_puts_the_runtime_into_each_fixed_file_and_runs_without_us(tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "sub" / "__init__.py", "")
    module = write(tmp_path / "pkg" / "sub" / "mod.py", PORTABLE)
    done = fix("pkg", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "pkg/sub/mod.py: WG001 names; the inline runtime adds " in done.stdout
    text = module.read_text()
    assert "flake8_weakglobals" not in text.replace("# --- flake8-weakglobals", "").replace("flake8_weakglobals/runtime/", "")
    assert "class _WeakIdMap(" in text and "\nnames = _WeakIdMap()\n" in text and not list(tmp_path.rglob("_weakglobals_runtime.py"))
    script = "import gc, pkg.sub.mod as m\nclass M: pass\nx = M(); m.add(x); print(len(m.names)); del x; gc.collect(); print(len(m.names))"
    ran = subprocess.run([sys.executable, "-S", "-E", "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert ran.stdout.split() == ["1", "0"], ran.stderr
    again = fix("pkg", cwd=tmp_path)
    assert (again.returncode, again.stdout) == (0, "fixed 0 containers in 0 files; 3 files checked\n") and module.read_text() == text


def test_vendor_mode_copies_the_runtime_into_the_top_package_and_runs_without_us(tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "sub" / "__init__.py", "")
    module = write(tmp_path / "pkg" / "sub" / "mod.py", PORTABLE)
    done = fix("--runtime", "vendor", "pkg", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    copy = tmp_path / "pkg" / "_weakglobals_runtime.py"
    header = copy.read_text().splitlines()[0]
    assert "flake8-weakglobals" in header and flake8_weakglobals.__version__ in header and "MIT" in header
    assert "from pkg._weakglobals_runtime import WeakIdMap as _WeakIdMap\n" in module.read_text()
    script = "import gc, pkg.sub.mod as m\nclass M: pass\nx = M(); m.add(x); print(len(m.names)); del x; gc.collect(); print(len(m.names))"
    ran = subprocess.run([sys.executable, "-S", "-E", "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert ran.stdout.split() == ["1", "0"], ran.stderr

    before = copy.stat()
    write(tmp_path / "pkg" / "other.py", PORTABLE)
    assert fix("--runtime", "vendor", "pkg", cwd=tmp_path).returncode == 0
    assert (copy.stat().st_ino, copy.stat().st_mtime_ns) == (before.st_ino, before.st_mtime_ns), "identical copy left alone"
    assert "from pkg._weakglobals_runtime import WeakIdMap" in (tmp_path / "pkg" / "other.py").read_text()


def test_an_older_copy_is_updated_and_a_foreign_file_is_never_overwritten(tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "__init__.py", "")
    copy = write(tmp_path / "pkg" / "_weakglobals_runtime.py", "# Vendored by flake8-weakglobals 0.0.1 (MIT licence)\nold\n")
    write(tmp_path / "pkg" / "a.py", PORTABLE)
    done = fix("--runtime", "vendor", "pkg", cwd=tmp_path)
    assert done.returncode == 0 and "pkg/_weakglobals_runtime.py: updated the vendored runtime" in done.stdout
    assert "class WeakIdMap" in copy.read_text()

    copy.write_text("# the user's own module\n")
    module = write(tmp_path / "pkg" / "b.py", PORTABLE)
    done = fix("--runtime", "vendor", "pkg", cwd=tmp_path)
    assert done.returncode == 2
    assert "was not written by flake8-weakglobals" in done.stderr and module.read_text() == PORTABLE
    assert copy.read_text() == "# the user's own module\n"


def test_a_script_outside_any_package_gets_the_copy_beside_it(tmp_path: Path) -> None:
    module = write(tmp_path / "scripts" / "tool.py", PORTABLE + '\n\nif __name__ == "__main__":\n    module = nn.Module()\n    add(module)\n')
    assert fix("--runtime", "vendor", "scripts/tool.py", cwd=tmp_path).returncode == 0
    assert (tmp_path / "scripts" / "_weakglobals_runtime.py").exists()
    assert "from _weakglobals_runtime import WeakIdMap as _WeakIdMap\n" in module.read_text()


def test_import_mode_imports_the_installed_runtime(tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "__init__.py", "")
    module = write(tmp_path / "pkg" / "mod.py", PINNING)
    assert fix("--runtime", "import", "pkg", cwd=tmp_path).returncode == 0
    assert "from flake8_weakglobals.runtime import WeakIdMap as _WeakIdMap\n" in module.read_text()
    assert not (tmp_path / "pkg" / "_weakglobals_runtime.py").exists()


# --- the file's mode --------------------------------------------------------------------------------------


def test_the_file_mode_is_kept_and_no_temporary_file_is_left(tmp_path: Path) -> None:
    module = write(tmp_path / "pins.py", PINNING)
    module.chmod(0o640)
    assert fix("--runtime", "import", "pins.py", cwd=tmp_path).returncode == 0
    assert stat.S_IMODE(module.stat().st_mode) == 0o640
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pins.py"]


# --- walking trees ---------------------------------------------------------------------------------------


def test_directories_skip_vcs_build_and_environments_and_honour_exclude(tmp_path: Path) -> None:
    for skipped in (".git/hooks/x.py", "build/lib/x.py", "dist/x.py", "__pycache__/x.py", "env/lib/x.py", "gen/x.py"):
        write(tmp_path / "src" / skipped, PINNING)
    write(tmp_path / "src" / "env" / "pyvenv.cfg", "home = /usr\n")
    kept = write(tmp_path / "src" / "kept.py", PINNING)
    done = fix("--runtime", "import", "--extend-exclude", "gen", "src", cwd=tmp_path)
    assert done.returncode == 0 and "1 file checked" in done.stdout
    assert "WeakIdMap" in kept.read_text()
    assert all(path.read_text() == PINNING for path in (tmp_path / "src").rglob("x.py"))


def test_parallel_jobs_give_the_same_result_as_one(tmp_path: Path) -> None:
    for name in ("serial", "parallel"):
        for index in range(24):
            write(tmp_path / name / f"m{index}.py", PINNING if index % 3 else "x = 1\n")
    serial = fix("--runtime", "import", "--jobs", "1", "serial", cwd=tmp_path)
    parallel = fix("--runtime", "import", "--jobs", "2", "parallel", cwd=tmp_path)
    assert serial.returncode == parallel.returncode == 0
    assert serial.stdout.replace("serial", "parallel") == parallel.stdout
    for index in range(24):
        assert (tmp_path / "serial" / f"m{index}.py").read_text() == (tmp_path / "parallel" / f"m{index}.py").read_text()


# --- the real DeepSpeed 0.19.6 -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def deepspeed_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ds")
    shutil.copytree(installed_package("deepspeed"), root / "deepspeed", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def test_the_whole_deepspeed_package_is_fixed_and_still_imports(deepspeed_copy: Path) -> None:
    done = fix("deepspeed", cwd=deepspeed_copy)
    assert done.returncode == 1, done.stderr  # thirteen findings are left to fix by hand, with reasons
    assert done.stderr == ""
    assert done.stdout == readme_block("deepspeed/inference/v2/allocator.py:15:5: WG003 Allocator.cache left as is")

    script = "import deepspeed, deepspeed.utils.debug as d, deepspeed.inference.quantization.layers as q; print(deepspeed.__file__); print(type(d.param_names).__module__, type(q.quantized_weight_registry).__module__)"
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=deepspeed_copy)
    assert ran.returncode == 0, ran.stderr
    imported_from, modules = ran.stdout.splitlines()[-2:]
    assert imported_from == str(deepspeed_copy / "deepspeed" / "__init__.py")
    assert modules == "deepspeed.utils.debug builtins"  # the map is inline; the registry is emptied beside it: left as is
    assert not list((deepspeed_copy / "deepspeed").rglob("_weakglobals_runtime.py"))

    snapshot = {path: path.read_bytes() for path in (deepspeed_copy / "deepspeed").rglob("*.py")}
    again = fix("deepspeed", cwd=deepspeed_copy)
    assert (again.returncode, again.stderr) == (1, ""), again.stderr  # the same ten left to fix by hand
    assert "fixed 0 containers in 0 files" in again.stdout
    assert {path: path.read_bytes() for path in (deepspeed_copy / "deepspeed").rglob("*.py")} == snapshot


def test_a_reader_that_goes_away_ends_the_run_quietly(tmp_path: Path) -> None:
    """``python -m fixes.apply --diff . | head``: no traceback when ``head`` stops reading. The diff goes,
    buffered as into any pipe, into one of a page (``test_interrupt.Run``) and is far longer than the pipe
    and the command's buffer together, so the command still has lines to write when the reader goes."""
    files = 300
    for index in range(files):
        write(tmp_path / f"m{index:03}.py", PINNING)
    one = "".join(difflib.unified_diff(PINNING.splitlines(True), fixed(PINNING).splitlines(True), "a/m000.py", "b/m000.py"))
    with running(["-m", "fixes.apply", "--diff", "--runtime", "import", "--jobs", "1", "."], tmp_path, unbuffered=False) as reader:
        assert reader.line().startswith("# m000.py:3:1: WG001 names is rewritten because")  # the proof, then the patch
        assert (files - 1) * len(one) > reader.capacity + 2 * io.DEFAULT_BUFFER_SIZE, "the diff could be written whole"
        reader.stop_reading()
        _, stderr = reader.process.communicate(timeout=120)
    assert (reader.process.returncode, stderr) == (1, "")


def test_a_file_that_imports_the_installed_runtime_keeps_one_import_in_vendor_mode(tmp_path: Path) -> None:
    text = PINNING.replace("from torch import nn\n", "from torch import nn\nfrom flake8_weakglobals.runtime import WeakIdSet\n")
    module = write(tmp_path / "pins.py", text + "\nseen = WeakIdSet()\n")
    done = fix("--runtime", "vendor", "pins.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    new = module.read_text()
    assert "from flake8_weakglobals.runtime import WeakIdSet, WeakIdMap as _WeakIdMap\n" in new and new.count(" import Weak") == 1
    assert not (tmp_path / "_weakglobals_runtime.py").exists()


REGISTRY = """from torch import nn

_LAYERS = {}


class Block(nn.Module):
    def __init__(self, prefix: str) -> None:
        super().__init__()
        _LAYERS[prefix] = self
"""


@pytest.mark.parametrize("how", ["flag", "config"])
def test_a_weak_value_fix_is_made_only_when_unsafe_fixes_are_asked_for(tmp_path: Path, how: str) -> None:
    """WG008's fix changes what a lookup by name finds once the other owners let go: by default it is left
    with what to check; ``--unsafe-fixes`` or ``unsafe-fixes = true`` makes it."""
    (tmp_path / "layers.py").write_text(REGISTRY)
    plain = subprocess.run([sys.executable, "-m", "fixes.apply", "--diff", "."], cwd=tmp_path, capture_output=True, text=True)
    assert plain.returncode == 1 and "WG008 _LAYERS left as is: a weak value changes what a lookup by name finds" in plain.stdout
    assert "rerun with `--unsafe-fixes`" in plain.stdout and "+_LAYERS = " not in plain.stdout
    if how == "flag":
        arguments = ["--unsafe-fixes"]
    else:
        (tmp_path / "pyproject.toml").write_text("[tool.weakglobals]\nunsafe-fixes = true\n")
        arguments = []
    unsafe = subprocess.run([sys.executable, "-m", "fixes.apply", "--diff", *arguments, "."], cwd=tmp_path, capture_output=True, text=True)
    assert unsafe.returncode == 1 and "+_LAYERS = _WeakValueMap()" in unsafe.stdout, unsafe.stdout + unsafe.stderr


RECORDER = """from torch import nn

NAMES = {}


def record(model: nn.Module) -> None:
    for name, module in model.named_modules():
        NAMES[module] = name
"""
CALLER = """from torch import nn

from pkg import names

MODEL = nn.Linear(2, 2)
names.record(MODEL)
print(len(names.NAMES))
"""


def test_each_fix_prints_its_proof_owners_and_uses_from_every_module(tmp_path: Path) -> None:
    """The proof is what the fix rests on: the owner shown in the container's module takes the model on
    trust from its callers, the caller in ``main.py`` shows it (a module global), and every use, here and
    there, is listed with its place. ``--check`` prints it under the file, ``--diff`` before the patch."""
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "names.py", RECORDER)
    write(tmp_path / "pkg" / "main.py", CALLER)
    proof = [
        "pkg/names.py:3:1: WG001 NAMES is rewritten because:",
        "  owner, line 8: `module` is each of `model.named_modules()`, `model`, a parameter of `record`, which nothing in this module calls: its callers keep what they pass",
        "  owner, pkg/main.py:6: `MODEL` passed to `record` is the module global `MODEL`, bound once",
        "  use, line 3: `NAMES = {}`",
        "  use, line 8: `NAMES[module] = name`",
        "  use, pkg/main.py:7: `print(len(names.NAMES))`",
    ]
    checked = fix("--check", "--runtime", "import", "pkg", cwd=tmp_path)
    assert (checked.returncode, checked.stderr) == (1, ""), checked.stderr
    assert checked.stdout.splitlines()[:7] == ["pkg/names.py: WG001 NAMES", *(f"  {line}" for line in proof)]
    diff = fix("--diff", "--runtime", "import", "pkg", cwd=tmp_path)
    assert (diff.returncode, diff.stderr) == (1, ""), diff.stderr
    assert diff.stdout.splitlines()[:7] == [*(f"# {line}" for line in proof), "--- a/pkg/names.py"]
    absolute = fix("--check", "--runtime", "import", str(tmp_path / "pkg" / "names.py"), cwd=tmp_path.parent)
    heading = f"  {tmp_path / 'pkg' / 'names.py'}:3:1: WG001 NAMES is rewritten because:"  # a place to click, root kept
    assert absolute.stdout.splitlines()[1] == heading, absolute.stdout


def test_a_caller_that_passes_an_object_nobody_keeps_breaks_the_proof(tmp_path: Path) -> None:
    """The same recorder, called in another module with a model built in the call: the map would be its
    only owner, so the weak map would lose it. The fix is refused, naming the call."""
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "names.py", RECORDER)
    write(tmp_path / "pkg" / "main.py", CALLER.replace("names.record(MODEL)", "names.record(nn.Linear(3, 3))"))
    done = fix("--check", "--runtime", "import", "pkg", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, ""), done.stderr
    assert done.stdout.splitlines()[0] == (
        "pkg/names.py:3:1: WG001 NAMES left as is: `pkg/main.py` line 6 passes `nn.Linear(3, 3)` to `record`, which "
        "keeps it: `nn.Linear(3, 3)` makes a new object, which nothing but the container is shown to keep"
    )
