"""With ``--runtime vendor``, the vendored runtime's import resolves the way the code is imported, in every
layout it can: differential runs. (The default, the runtime inline, is run over layouts in ``test_inline_layouts.py``.)

For each layout the same command runs in a fresh interpreter before and after ``python -m fixes.apply``
(``-S -E``: no site-packages, so neither torch nor this package can be imported: the vendored copy must be).
Before, a dropped key stays in the global (``1 1``); after, it is collected (``1 0``) and the container's
class comes from the copy the codemod wrote. Nothing else may differ. Layouts where no import could
resolve are refused: the file is left as it was, the reason is on stderr, the exit code is 2.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

# A pinning module that runs without torch (the evidence is a TYPE_CHECKING import).
MODULE = (
    "from __future__ import annotations\n\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
    "    from torch import nn\n\nnames = {}\n\n\ndef add(module: nn.Module) -> None:\n    names[module] = 1\n"
)
# The probe reads the module the fix takes the map's class from (``_WeakIdMap``, the name the fix binds; none
# before it): a script of the project that read the map's type, ``type(m.names)`` or through
# ``getattr(m, "names")``, would rightly make the codemod refuse the fix (it checks the project's other uses
# of a container, and of the module that holds it).
PROBE = (
    "import gc\nclass Key: pass\nkey = Key(); m.add(key); before = len(m.names); del key; gc.collect()\n"
    "try:\n    runtime = m._WeakIdMap.__module__\nexcept AttributeError:\n    runtime = 'builtins'\n"
    "print(before, len(m.names), runtime)\n"
)
PROJECT = '[project]\nname = "demo"\nversion = "0"\n'
#: A module of a regular package that is also a script.
TOOL = {
    "pyproject.toml": PROJECT, "tools/__init__.py": "",
    "tools/x.py": MODULE + '\n\nif __name__ == "__main__":\n    import sys\n    m = sys.modules[__name__]\n'
    + "".join(f"    {line}\n" for line in PROBE.splitlines()),
}


@dataclass(frozen=True)
class Layout:
    files: dict[str, str]
    run: list[str]  # after ``python -S -E``, from the layout's root
    runtime: str  # the module the fixed code takes WeakIdMap from
    fix: list[str] = field(default_factory=lambda: ["."])  # ``python -m fixes.apply`` arguments
    fix_cwd: str = "."
    root: str = "."  # where Python imports it from, relative to the layout


def probe(module: str) -> list[str]:
    return ["-c", f"import {module} as m\n{PROBE}"]


LAYOUTS = {
    "regular package": Layout({"pkg/__init__.py": "", "pkg/sub/__init__.py": "", "pkg/sub/mod.py": MODULE}, probe("pkg.sub.mod"), "pkg._weakglobals_runtime"),
    "namespace package": Layout({"pyproject.toml": PROJECT, "nspkg/sub/stats.py": MODULE}, probe("nspkg.sub.stats"), "nspkg._weakglobals_runtime"),
    "namespace package, no project file, fixed from its parent": Layout(
        {"nspkg/sub/stats.py": MODULE}, probe("nspkg.sub.stats"), "nspkg._weakglobals_runtime", fix=["nspkg"]),
    "namespace package in a regular one": Layout({"pkg/__init__.py": "", "pkg/sub/x.py": MODULE}, probe("pkg.sub.x"), "pkg._weakglobals_runtime"),
    "src layout, namespace": Layout(
        {"pyproject.toml": PROJECT, "src/nsp/mod.py": MODULE}, ["-c", f"import sys; sys.path.insert(0, 'src')\nimport nsp.mod as m\n{PROBE}"],
        "nsp._weakglobals_runtime", fix=["src"], root="src"),
    "src layout, regular": Layout(
        {"pyproject.toml": PROJECT, "src/pkg/__init__.py": "", "src/pkg/mod.py": MODULE},
        ["-c", f"import sys; sys.path.insert(0, 'src')\nimport pkg.mod as m\n{PROBE}"], "pkg._weakglobals_runtime", fix=["pkg"], fix_cwd="src", root="src"),
    "a top-level module": Layout({"pyproject.toml": PROJECT, "single.py": MODULE}, probe("single"), "_weakglobals_runtime"),
    "a directory of scripts": Layout(
        {"pyproject.toml": PROJECT, "scripts/common.py": MODULE,
         "scripts/train.py": 'import common as m\n\nif __name__ == "__main__":\n' + "".join(f"    {line}\n" for line in PROBE.splitlines())},
        ["scripts/train.py"], "_weakglobals_runtime", fix=["scripts"], root="scripts"),
    "a directory of scripts without #! or __main__": Layout(
        {"pyproject.toml": PROJECT, "scripts/common.py": MODULE, "scripts/train.py": f"import common as m\n{PROBE}"},
        ["scripts/train.py"], "_weakglobals_runtime", root="scripts"),
    "a directory that is not an identifier": Layout(
        {"pyproject.toml": PROJECT, "my-tools/helpers/h.py": MODULE, "my-tools/run.py": f"import helpers.h as m\n{PROBE}"},
        ["my-tools/run.py"], "helpers._weakglobals_runtime", root="my-tools"),
    "a regular package run with python -m": Layout(
        {"pkg/__init__.py": "", "pkg/tool.py": MODULE + '\n\nif __name__ == "__main__":\n    import sys\n    m = sys.modules[__name__]\n'
         + "".join(f"    {line}\n" for line in PROBE.splitlines())},
        ["-m", "pkg.tool"], "pkg._weakglobals_runtime"),
    # ``python tools/x.py`` puts tools/ on sys.path, ``python -m tools.x`` its parent (the layout above): no
    # one import works both ways, so the file tries the relative one, then the bare one, the copy beside it.
    "a script in a regular package, run by path": Layout(TOOL, ["tools/x.py"], "_weakglobals_runtime", root="tools"),
    "a script in a subpackage, run by path": Layout(
        {"pyproject.toml": PROJECT, "pkg/__init__.py": "", "pkg/tools/__init__.py": "", "pkg/tools/x.py": TOOL["tools/x.py"]},
        ["pkg/tools/x.py"], "_weakglobals_runtime", root="pkg/tools"),
    "a namespace package run with python -m": Layout(
        {"pyproject.toml": PROJECT, "app/cli.py": MODULE + f"\nimport sys\nm = sys.modules[__name__]\n{PROBE}"}, ["-m", "app.cli"], "app._weakglobals_runtime"),
}


def python(arguments: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-S", "-E", *arguments], capture_output=True, text=True, cwd=cwd)


def fix(arguments: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m fixes.apply --runtime vendor ARGUMENTS``: this file is about the vendored copy's import."""
    return subprocess.run([sys.executable, "-m", "fixes.apply", "--runtime", "vendor", *arguments], capture_output=True,
                          text=True, cwd=cwd, env={**os.environ, "NO_COLOR": "1"})


def build(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


@pytest.mark.parametrize("name", LAYOUTS)
def test_the_fixed_code_imports_its_runtime_in_a_fresh_interpreter(name: str, tmp_path: Path) -> None:
    layout = LAYOUTS[name]
    build(tmp_path, layout.files)
    before = python(layout.run, tmp_path)
    assert before.stdout == "1 1 builtins\n", before.stderr
    done = fix(layout.fix, tmp_path / layout.fix_cwd)
    assert done.returncode == 0 and done.stderr == "", done.stdout + done.stderr
    after = python(layout.run, tmp_path)
    assert after.stdout == f"1 0 {layout.runtime}\n", after.stderr
    copy = (tmp_path / layout.root).joinpath(*layout.runtime.split(".")).with_suffix(".py")
    assert copy.read_text().startswith("# Vendored by flake8-weakglobals")
    assert sorted(tmp_path.rglob("_weakglobals_runtime.py")) == [copy], "one copy, where the import finds it"


@pytest.mark.parametrize(
    ("files", "reason"),
    [
        ({"nspkg.py": "", "nspkg/sub/stats.py": MODULE}, "`nspkg` is the module {root}/nspkg.py, not the package {root}/nspkg"),
        ({"email/stats.py": MODULE}, "`email` is {stdlib}/email/__init__.py, not the package {root}/email"),
        ({"pkg/__init__.py": "", "pkg/_weakglobals_runtime/__init__.py": "", "pkg/mod.py": MODULE},
         "`pkg._weakglobals_runtime` is {root}/pkg/_weakglobals_runtime/__init__.py, which would be imported instead of the copy"),
    ],
    ids=["a module shadows the namespace package", "a namespace package named like a standard module", "a package shadows the copy"],
)
def test_an_import_that_would_not_resolve_is_refused_with_the_reason(files: dict[str, str], reason: str, tmp_path: Path) -> None:
    import sysconfig

    build(tmp_path, {"pyproject.toml": PROJECT, **files})
    module = next(name for name, text in files.items() if text == MODULE)
    done = fix(["."], tmp_path)
    assert done.returncode == 2
    runtime = module.split("/")[0] + "._weakglobals_runtime"
    why = reason.format(root=tmp_path, stdlib=sysconfig.get_paths()["stdlib"])
    assert done.stderr == f"{module}:8: left unchanged: the runtime import `{runtime}` would not resolve from the import root {tmp_path}: {why}\n"
    assert (tmp_path / module).read_text() == MODULE
    assert not list(tmp_path.rglob("_weakglobals_runtime.py"))


@pytest.mark.parametrize(
    ("link", "target", "files", "module"),
    [
        ("trackers", "vendor/trackers-1.2", {"vendor/trackers-1.2/__init__.py": "", "vendor/trackers-1.2/state.py": MODULE}, "trackers.state"),
        ("nspkg", "shared/nspkg", {"shared/nspkg/sub/stats.py": MODULE}, "nspkg.sub.stats"),
    ],
    ids=["a regular package linked under another name", "a namespace package linked from outside the project"],
)
def test_a_package_reached_through_a_symlink_imports_its_copy_by_the_path_the_user_sees(
    link: str, target: str, files: dict[str, str], module: str, tmp_path: Path
) -> None:
    """``proj/trackers -> ../vendor/trackers-1.2``: Python imports ``trackers`` by the link's name, from the
    directory that holds the link, so the copy goes where the link shows it (written through the link)."""
    build(tmp_path, {"proj/pyproject.toml": PROJECT, **files})
    project = tmp_path / "proj"
    (project / link).symlink_to(tmp_path / target, target_is_directory=True)
    before = python(probe(module), project)
    assert before.stdout == "1 1 builtins\n", before.stderr
    done = fix([link], project)
    assert done.returncode == 0 and done.stderr == "", done.stdout + done.stderr
    assert done.stdout.startswith(f"{link}/_weakglobals_runtime.py: created the vendored runtime"), done.stdout
    after = python(probe(module), project)
    assert after.stdout == f"1 0 {link}._weakglobals_runtime\n", after.stderr
    assert (tmp_path / target / "_weakglobals_runtime.py").read_text().startswith("# Vendored by flake8-weakglobals")


# A test module of a directory without ``__init__.py`` that pins; the conftest reports which class the map
# is (read from outside, as PROBE does: the codemod refuses a fix for ``type(names)`` in the project).
TEST_MODULE = MODULE + (
    "\n\nclass Key:\n    pass\n\n\nKEYS = [Key()]  # the module's own: an owner the fix can show\n\n\n"
    "def test_a_dropped_key_is_collected() -> None:\n    import gc\n\n"
    "    add(KEYS[0])\n    before = len(names)\n    KEYS.clear()\n    gc.collect()\n"
    '    print("RESULT", before, len(names))\n'
)
CONFTEST = (
    "import sys\n\n\ndef pytest_sessionfinish(session):\n"
    "    module = next(m for m in list(sys.modules.values()) if str(getattr(m, '__file__', '')).endswith('test_state.py'))\n"
    "    print('RUNTIME', type(getattr(module, 'names')).__module__)\n"
)


def run_pytest(mode: str, cwd: Path) -> str:
    """``pytest --import-mode=MODE`` as the console script runs it: ``-P``, so the working directory is not
    on sys.path (``python -m pytest`` would add it, which would hide an import that works only from there)."""
    done = subprocess.run([sys.executable, "-P", "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", f"--import-mode={mode}", "tests"],
                          capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, done.stdout + done.stderr
    return " ".join(re.findall(r"RESULT \d+ \d+|RUNTIME \S+", done.stdout))  # after pytest's progress dots


@pytest.mark.parametrize("directory", ["tests", "tests/unit"])
def test_a_test_directory_without_init_imports_its_runtime_under_every_pytest_import_mode(directory: str, tmp_path: Path) -> None:
    """pytest imports ``tests/test_state.py`` as ``test_state``, its directory on sys.path, in its prepend and
    append modes, and as ``tests.test_state``, with nothing added to sys.path, in its importlib mode: neither
    ``tests._weakglobals_runtime`` nor a bare ``_weakglobals_runtime`` works in all three, so the file tries
    the relative import, then the bare one, with the copy beside it."""
    build(tmp_path, {"pyproject.toml": PROJECT, f"{directory}/test_state.py": TEST_MODULE, "tests/conftest.py": CONFTEST})
    for mode in ("prepend", "append", "importlib"):
        assert run_pytest(mode, tmp_path) == "RESULT 1 1 RUNTIME builtins", mode
    done = fix(["."], tmp_path)
    assert done.returncode == 0 and done.stderr == "", done.stdout + done.stderr
    assert done.stdout.startswith(f"{directory}/_weakglobals_runtime.py: created the vendored runtime"), done.stdout
    dotted = directory.replace("/", ".")
    for mode, runtime in (("prepend", "_weakglobals_runtime"), ("append", "_weakglobals_runtime"), ("importlib", f"{dotted}._weakglobals_runtime")):
        assert run_pytest(mode, tmp_path) == f"RESULT 1 0 RUNTIME {runtime}", mode
    again = fix(["."], tmp_path)
    assert (again.returncode, again.stderr) == (0, "") and again.stdout.startswith("fixed 0 containers in 0 files"), "a second run changes nothing"


def test_a_script_the_project_runs_with_run_path_is_refused_with_the_reason(tmp_path: Path) -> None:
    """``runpy.run_path("examples/demo.py")`` puts nothing on sys.path (``python examples/demo.py`` puts
    examples/ there), so the copy beside the script could not be imported: the fix is refused, and says why."""
    demo = MODULE + '\n\nif __name__ == "__main__":\n    import sys\n    m = sys.modules[__name__]\n' + "".join(f"    {line}\n" for line in PROBE.splitlines())
    runner = (
        "import runpy\nfrom pathlib import Path\n\nEXAMPLES = Path(__file__).parent.parent / \"examples\"\n\n\n"
        "def test_every_example_runs() -> None:\n    for script in sorted(EXAMPLES.glob(\"*.py\")):\n"
        "        runpy.run_path(str(script), run_name=\"__main__\")\n"
    )
    build(tmp_path, {"pyproject.toml": PROJECT, "examples/demo.py": demo, "tests/test_examples.py": runner})
    run = ["-c", "import runpy; runpy.run_path('examples/demo.py', run_name='__main__')"]
    assert python(run, tmp_path).stdout == "1 1 builtins\n"
    done = fix(["examples"], tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "examples/demo.py:8: left unchanged: the runtime import `_weakglobals_runtime` would not resolve: tests/test_examples.py "
        "runs it with runpy.run_path, which puts nothing on sys.path (not even examples/); use --runtime import\n"
    )
    assert (tmp_path / "examples/demo.py").read_text() == demo and not list(tmp_path.rglob("_weakglobals_runtime.py"))
    assert python(run, tmp_path).stdout == "1 1 builtins\n"


def test_a_package_module_another_file_loads_by_its_path_is_refused_with_the_reason(tmp_path: Path) -> None:
    """``spec_from_file_location("_standalone", "toolkit/tracer.py")`` runs the module as one of no package;
    an import of ``toolkit._weakglobals_runtime`` from it would run ``toolkit/__init__.py``, which that load
    never did (set 10d: the package's ``__init__`` loaded a second copy of the module and its hook)."""
    loader = (
        "import importlib.util\n\n"
        "spec = importlib.util.spec_from_file_location('_standalone', 'toolkit/tracer.py')\n"
        "module = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(module)\n"
    )
    build(tmp_path, {"pyproject.toml": PROJECT, "toolkit/__init__.py": "", "toolkit/tracer.py": MODULE, "load.py": loader})
    done = fix(["toolkit"], tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "toolkit/tracer.py:8: left unchanged: the runtime import `toolkit._weakglobals_runtime` would change how it loads: "
        "load.py loads it by its path with importlib.util.spec_from_file_location, as a module of no package, and the "
        "import would run `toolkit/__init__.py`, which that load never did; use --runtime inline\n"
    )
    assert (tmp_path / "toolkit/tracer.py").read_text() == MODULE and not list(tmp_path.rglob("_weakglobals_runtime.py"))


def test_a_py_modules_distribution_ships_the_copy_or_the_fix_is_refused(tmp_path: Path) -> None:
    """setuptools installs only the modules ``py-modules`` names: a copy beside ``single.py`` that is not one
    of them would be left behind, and the installed ``import single`` would fail. Refused with the reason;
    once the copy is listed, the fix goes through and the installed distribution imports it."""
    pyproject = (
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
        + PROJECT + '\n[tool.setuptools]\npy-modules = ["single"]\n'
    )
    build(tmp_path, {"pyproject.toml": pyproject, "single.py": MODULE})
    done = fix(["."], tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "single.py:8: left unchanged: the runtime import `_weakglobals_runtime` would not resolve: the distribution ships only "
        "the modules pyproject.toml ([tool.setuptools] py-modules) lists, which name `single` and not `_weakglobals_runtime`: "
        "add it there, or use --runtime import\n"
    )
    assert (tmp_path / "single.py").read_text() == MODULE and not list(tmp_path.rglob("_weakglobals_runtime.py"))

    (tmp_path / "pyproject.toml").write_text(pyproject.replace('["single"]', '["single", "_weakglobals_runtime"]'))
    done = fix(["."], tmp_path)
    assert done.returncode == 0 and done.stderr == "", done.stdout + done.stderr
    target = tmp_path / "installed"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index", "--target", str(target), "."],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    shipped = python(["-c", f"import sys; sys.path.insert(0, {str(target)!r})\nimport single as m\n{PROBE}"], tmp_path / "installed")
    assert shipped.stdout == "1 0 _weakglobals_runtime\n", shipped.stderr


def test_a_later_fix_extends_both_lines_of_a_two_way_import(tmp_path: Path) -> None:
    """A script fixed once imports the runtime two ways; a container fixed later joins both lines (one line
    more would be imported only one way), and the script still runs by path and with ``python -m``."""
    build(tmp_path, TOOL)
    first = fix(["."], tmp_path)
    assert (first.returncode, first.stderr) == (0, ""), first.stderr
    script = tmp_path / "tools" / "x.py"
    script.write_text(script.read_text() + "\nseen = set()\n\n\ndef visit(module: nn.Module) -> None:\n    seen.add(module)\n")
    done = fix(["."], tmp_path)
    assert done.returncode == 0 and done.stderr == "" and "tools/x.py: WG002 seen" in done.stdout, done.stdout + done.stderr
    imported = "import WeakIdMap as _WeakIdMap, WeakIdSet as _WeakIdSet\n"
    assert f"try:\n    from ._weakglobals_runtime {imported}except ImportError:" in script.read_text()
    assert f"\n    from _weakglobals_runtime {imported}" in script.read_text() and script.read_text().count("_weakglobals_runtime import") == 2
    assert python(["tools/x.py"], tmp_path).stdout == "1 0 _weakglobals_runtime\n"
    assert python(["-m", "tools.x"], tmp_path).stdout == "1 0 tools._weakglobals_runtime\n"
    again = fix(["."], tmp_path)
    assert (again.returncode, again.stderr) == (0, "") and again.stdout.startswith("fixed 0 containers in 0 files"), "a second run changes nothing"
