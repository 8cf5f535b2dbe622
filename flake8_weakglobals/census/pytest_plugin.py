"""``pytest --weakglobals``: after every test, which long-lived containers of your packages still hold the
modules, parameters and tensors the test created, how many bytes they keep, and which finding of the
linter each one confirms (``measure.py`` does the work).

- ``--weakglobals`` (or ``--weakglobals=report``) prints the pins at the end of the session, grouped by
  container and sorted by bytes; ``--weakglobals=fail`` also fails (as an error at teardown) each test that
  left a pin, with its pins as the message. The mode takes an optional value, so argparse hands the
  next word to it: ``pytest --weakglobals tests`` reads ``tests`` as the mode. A word that names an
  existing path is taken back as the first test path, as it was meant; any other word is a usage error.
- ``--weakglobals-packages a,b`` (or the ``weakglobals_packages`` ini key) selects whose state is walked;
  the default is every package directly under pytest's rootdir (or its ``src/``). ``extra-types``,
  ``select`` and ``ignore`` come from ``[tool.weakglobals]``, as the linter reads them.
- ``@pytest.mark.weakglobals(allow=True)`` skips one test; ``expect=["pkg.mod.cache"]`` says which
  containers the test is known to pin: it fails if they pin nothing, and in fail mode only other pins fail.
- The ``weakglobals`` fixture is a census started before the test body: ``weakglobals.check().pins``.
- What pytest could not collect (a test module that fails to import) ran no test, so no census ran on it:
  the summary names it (``census: 1 module could not be collected; not censused: test_x.py``) and does not
  read as a clean census.

Without ``--weakglobals`` nothing is registered but the option, the marker and the fixture: no hook runs
after any test, and the census module is not even imported.
"""
from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Generator, Iterator

import pytest

if TYPE_CHECKING:
    from ..frontends.config import Settings
    from .measure import Census
    from .report import Pin, Report

MODES = ("report", "fail")
PLUGIN = "weakglobals-census"
MARKER = (
    "weakglobals(allow=False, expect=()): allow=True leaves this test out of the weakglobals census; "
    "expect=['pkg.module.container', ...] names the containers it is known to pin (it fails if they pin nothing)"
)
NOT_WALKED = (
    "not walked: objects created before each test (session fixtures, import time), C extension state without "
    "tp_traverse, frames of running threads"
)
_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("weakglobals", "flake8-weakglobals runtime census")
    group.addoption(
        "--weakglobals", nargs="?", const="report", default=None, metavar="report|fail",
        help="after each test, report the objects it created that long-lived state of the selected packages still "
        "holds (at the end of the session; 'fail' also fails each test that left some)",
    )
    group.addoption("--weakglobals-packages", metavar="PACKAGES",
                    help="comma-separated packages whose state the census walks (default: the packages under the rootdir)")
    parser.addini("weakglobals_packages", type="args", help="packages whose state pytest --weakglobals walks")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER)
    mode = config.getoption("weakglobals")
    if mode is None:
        return
    if mode not in MODES:
        _take_back_a_test_path(config, mode)
        mode = "report"
    config.pluginmanager.register(CensusPlugin(config, mode), PLUGIN)


def _take_back_a_test_path(config: pytest.Config, word: str) -> None:
    """``pytest --weakglobals tests``: the option took the first test path as its mode; put it back in front
    of the others (or in place of the default paths pytest chose when it saw none)."""
    if not (config.invocation_params.dir / word.split("::")[0]).exists():
        raise pytest.UsageError(
            f"--weakglobals takes 'report' or 'fail', not {word!r}, which is no path either "
            "(write --weakglobals=report when test paths follow it)"
        )
    given = config.args if config.args_source is pytest.Config.ArgsSource.ARGS else []
    config.args = [word, *given]


@pytest.fixture
def weakglobals(request: pytest.FixtureRequest) -> Iterator[TestCensus]:
    """A census started before the test body (after the fixtures it depends on): ``weakglobals.check()``
    reports what the test created so far that long-lived state holds, with or without ``--weakglobals``."""
    from .measure import Census

    plugin = request.config.pluginmanager.get_plugin(PLUGIN)
    packages, settings = (plugin.census.packages, plugin.census.settings) if plugin else selection(request.config)
    engine = Census(packages, sorted(settings.extra_types), settings)
    engine.start()
    yield TestCensus(engine, request.node.nodeid)
    engine.close()


class TestCensus:
    """What the ``weakglobals`` fixture gives a test."""

    __test__ = False  # not a test class, whatever its name

    def __init__(self, engine: Census, test: str) -> None:
        self._engine, self._test = engine, test

    def check(self) -> Report:
        return self._engine.check(self._test)


def selection(config: pytest.Config) -> tuple[tuple[str, ...], Settings]:
    """The packages to walk and ``[tool.weakglobals]``'s settings, or a usage error that says what is wrong."""
    from ..frontends.config import ConfigError, Settings, find_config, settings_from_table

    try:
        found = find_config([config.rootpath])
        settings = settings_from_table(found[1], found[0]) if found else Settings()
    except ConfigError as error:
        raise pytest.UsageError(str(error)) from None
    option = config.getoption("weakglobals_packages")
    if option:
        packages, where = [name for name in re.split(r"[,\s]+", option) if name], "--weakglobals-packages"
    else:
        packages, where = config.getini("weakglobals_packages"), "weakglobals_packages"
    for name in packages:
        if not _NAME.fullmatch(name):
            raise pytest.UsageError(f"{where}: {name!r} is not a package name such as 'mypkg' or 'mypkg.sub'")
    packages = packages or packages_under(config.rootpath)
    if not packages:
        raise pytest.UsageError(
            f"--weakglobals: no package under {config.rootpath} (a directory with __init__.py, there or in src/); "
            "name them with --weakglobals-packages"
        )
    return tuple(packages), settings


def packages_under(root: Path) -> list[str]:
    """The importable packages directly under ``root`` and ``root/src``."""
    found = []
    for base in (root, root / "src"):
        if base.is_dir():
            found += sorted(
                child.name for child in base.iterdir()
                if child.is_dir() and child.name.isidentifier() and (child / "__init__.py").is_file()
            )
    return found


def marker_arguments(item: pytest.Item) -> tuple[bool, frozenset[str]]:
    """``allow`` and ``expect`` of the test's ``weakglobals`` marker; a ValueError names the test's file:line."""
    marker = item.get_closest_marker("weakglobals")
    if marker is None:
        return False, frozenset()
    path, line, _ = item.location
    where = f"{path}:{(line or 0) + 1}: @pytest.mark.weakglobals"
    unknown = sorted(set(marker.kwargs) - {"allow", "expect"})
    if marker.args or unknown:
        raise ValueError(f"{where} takes allow= and expect= only, not {unknown[0] + '=' if unknown else 'positional arguments'}")
    allow, expect = marker.kwargs.get("allow", False), marker.kwargs.get("expect", ())
    expect = (expect,) if isinstance(expect, str) else expect
    if not isinstance(allow, bool) or not isinstance(expect, (list, tuple)) or not all(isinstance(name, str) for name in expect):
        raise ValueError(f"{where}: allow must be True or False and expect a container name or a list of them")
    return allow, frozenset(expect)


class CensusPlugin:
    """The census around every test; registered only with ``--weakglobals``."""

    def __init__(self, config: pytest.Config, mode: str) -> None:
        from .measure import Census

        packages, settings = selection(config)
        self.census = Census(packages, sorted(settings.extra_types), settings)
        self.mode = mode
        self.pins: list[Pin] = []
        self.not_censused: list[str] = []  # node ids of what failed to collect (under xdist, as the controller hears them)
        self.seconds = 0.0  # spent in censuses, over every test (and every xdist worker)
        self.tests = 0
        self._unreported = 0.0  # spent before a test's report exists (baselines)

    def _timed(self, run: Callable[[], Any]) -> Any:
        start = time.perf_counter()
        try:
            return run()
        finally:
            self._unreported += time.perf_counter() - start

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        if not self.census.started:  # later tests start from the census after the one before
            self._timed(self.census.start)
        yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef: Any, request: pytest.FixtureRequest) -> Generator[None, None, None]:
        """What a module-, class- or session-scoped fixture builds is not the test's: start again after it
        (pytest sets such fixtures up before the test's function-scoped ones)."""
        yield
        if fixturedef.scope != "function":
            self._timed(self.census.start)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Generator[None, Any, None]:
        outcome = yield
        if call.when != "teardown":
            return
        report = outcome.get_result()
        try:
            allow, expect = marker_arguments(item)
        except ValueError as error:
            allow, expect, problems = True, frozenset(), [str(error)]
        else:
            problems = []
        census = self._timed(lambda: self.census.finish(item.nodeid, walk=not allow))
        pins = [pin.expecting() if pin.root in expect else pin for pin in census.pins]
        report.weakglobals = [pin.to_json() for pin in pins]  # type: ignore[attr-defined]  # crosses to the xdist controller
        report.weakglobals_seconds, self._unreported = self._unreported, 0.0  # type: ignore[attr-defined]
        missing = sorted(expect - {pin.root for pin in pins})
        if missing:
            problems.append(f"{item.nodeid}: expected pins in {', '.join(missing)} (its weakglobals marker), found none there")
        unexpected = [pin for pin in pins if not pin.expected and not pin.intended]
        if self.mode == "fail" and unexpected:
            from .report import Report

            problems.extend(Report(self.census.packages, unexpected).lines())
        if problems:
            _fail(report, "\n".join(problems))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Collects every test's pins, here or (under pytest-xdist) from the workers' reports."""
        if report.when == "teardown" and hasattr(report, "weakglobals_seconds"):
            from .report import Pin

            self.pins.extend(Pin.from_json(pin) for pin in getattr(report, "weakglobals", ()))
            self.seconds += report.weakglobals_seconds  # type: ignore[attr-defined]
            self.tests += 1

    def pytest_unconfigure(self) -> None:
        self.census.close()

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """A module (or class) that fails to collect runs no test: the summary must not read as a clean census."""
        if report.failed and report.nodeid not in self.not_censused:
            self.not_censused.append(report.nodeid)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        from .report import Report

        terminalreporter.write_sep("=", "weakglobals census")
        for line in Report(self.census.packages, self.pins, self.not_censused).lines():
            terminalreporter.write_line(line)
        per_test = f" ({self.seconds / self.tests * 1000:.0f} ms per test)" if self.tests else ""
        terminalreporter.write_line(f"{self.tests} test{'' if self.tests == 1 else 's'} censused in {self.seconds:.1f} s{per_test}; {NOT_WALKED}")


def _fail(report: pytest.TestReport, text: str) -> None:
    """Fail a teardown report with ``text``, or add ``text`` to it when the teardown failed already."""
    if report.failed:
        report.sections.append(("weakglobals census", text))
    else:
        report.outcome = "failed"
        report.longrepr = text
