"""Rescore the linter against a hand-judged sweep of real PyTorch-ecosystem repositories.

    python benchmarks/sweep.py [--root /work/sweep] [--json] [--quick]

Why it exists: the fixtures and the torch/DeepSpeed sweeps in the test suite say what the rules do on code
written to exercise them; they cannot say how often a finding on someone else's code is right, or how many
real pins go unreported. ``benchmarks/sweep/`` holds that judgement, made once by reading the code around
every finding in pinned commits of 28 public repositories:

- ``repositories.json``: each repository, the commit judged and how many Python files the linter checks there;
- ``verdicts.json``: every finding at those commits, judged ``true`` (a real pin), ``intended`` (a real pin
  kept on purpose) or ``false``, with the reason;
- ``missed.json``: real pins found by reading that the linter did not report, with their recall class.

This script runs the linter of this checkout (``python -m flake8_weakglobals.frontends.command`` with the checkout first
on ``PYTHONPATH``, or ``--weakglobals PROGRAM``) inside each repository present under the root, on ``.``
(``ROOT/owner+name``, absent ones are skipped with a note), matches each finding to its verdict by path,
code and container name (falling back to the line), and prints per repository the findings, how many are
judged true / intended / false and how many are not judged yet; overall precision, (true + intended) /
judged, also for library code alone; recall against ``missed.json`` (a miss counts as found when a finding
in the same file names the same container or function); the findings nobody has judged, to judge and add;
the verdicts no finding matches any more; and how to fetch every repository at its commit.

It is a report: exit 0 whatever it finds, 2 on usage errors (bad flags, unreadable data, no linter to run).
Standard library only, Python 3.9+.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
DATA = HERE / "sweep"
DEFAULT_ROOT = Path("/work/sweep")
VERDICTS = ("true", "intended", "false")
LOCATIONS = ("library", "tests", "scripts", "examples", "docs", "app")
SELECTION = ("--select", "WG")  # what the README tells users to run: precision counts all it reports
FINDING_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>WG\d{3}) (?P<message>.*)$")


class UsageError(Exception):
    """Bad flags or data: reported on stderr, exit 2."""


@dataclass
class Finding:
    repo: str
    path: str
    line: int
    code: str
    name: str
    message: str
    verdict: Optional[str] = None
    reason: str = ""
    location: str = ""
    matched: int = 0  # ``id()`` of the verdict it matched


@dataclass
class RepoResult:
    repo: str
    commit: str
    files: int
    present: bool
    ran: bool = False
    seconds: float = 0.0
    exit_code: Optional[int] = None
    stderr_lines: int = 0
    findings: List[Finding] = field(default_factory=list)

    def count(self, verdict: Optional[str]) -> int:
        return sum(1 for finding in self.findings if finding.verdict == verdict)


def directory_name(repo: str) -> str:
    """``owner/name`` -> ``owner+name``, the directory each repository is unpacked into."""
    return repo.replace("/", "+", 1)


def finding_name(code: str, message: str) -> str:
    """The container or function a message names: for a cache (WG006, WG007's `@lru_cache` on `f`) the function
    after `on`, else the first name quoted."""
    if code == "WG006" or message.startswith("`@"):
        match = re.search(r" on `([^`]+)`", message)
        if match:
            return match.group(1)
    match = re.search(r"`([^`]+)`", message)
    return match.group(1) if match else ""


def same_name(a: str, b: str) -> bool:
    """Equal, or one is a dotted suffix of the other (``triple`` and ``Manager.triple``)."""
    if not a or not b:
        return False
    return a == b or a.endswith("." + b) or b.endswith("." + a)


def load_json_list(path: Path, required: Sequence[str]) -> List[Dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError(f"{path}: cannot read: {error}") from None
    if not isinstance(data, list):
        raise UsageError(f"{path}: expected a list")
    for index, entry in enumerate(data):
        missing = [key for key in required if not isinstance(entry, dict) or key not in entry]
        if missing:
            raise UsageError(f"{path}: entry {index} lacks {', '.join(missing)}")
    return data


def linter_command(program: Optional[str]) -> Tuple[List[str], Dict[str, str]]:
    """The command to run, and its environment: this checkout's linter unless a program is named."""
    environment = dict(os.environ)
    if program:
        return [program, *SELECTION], environment
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(CHECKOUT), environment.get("PYTHONPATH", "")]))
    return [sys.executable, "-m", "flake8_weakglobals.frontends.command", *SELECTION], environment


def run_linter(
    command: List[str], environment: Dict[str, str], root: Path, repo: Dict[str, Any]
) -> Tuple[List[Finding], int, int, float]:
    """Findings of one repository (paths relative to its root), the exit code, stderr lines, seconds. The
    linter runs inside the repository on ``.``, as the accuracy issue's users run it: a checkout unpacked
    without its ``.git`` is then still one project (its working directory)."""
    prefix = "./"
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [*command, "."], cwd=root / directory_name(repo["repo"]), env=environment, capture_output=True, text=True
        )
    except OSError as error:
        raise UsageError(f"cannot run {' '.join(command)}: {error}") from None
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1, 2):
        raise UsageError(f"{' '.join(command)} exited {done.returncode} on {repo['repo']}: {done.stderr.strip()[:500]}")
    findings = []
    for text in done.stdout.splitlines():
        match = FINDING_LINE.match(text)
        if not match:
            continue
        path = match.group("path")
        path = path[len(prefix):] if path.startswith(prefix) else path
        code, message = match.group("code"), match.group("message")
        findings.append(Finding(repo["repo"], path, int(match.group("line")), code, finding_name(code, message), message))
    return findings, done.returncode, len(done.stderr.splitlines()), seconds


def match_verdicts(findings: List[Finding], verdicts: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Attach a verdict to each finding that has one; return the verdicts no finding matched."""
    unused = list(verdicts)
    for finding in findings:
        same_file = [v for v in unused if v["repo"] == finding.repo and v["path"] == finding.path and v["code"] == finding.code]
        by_name = [v for v in same_file if same_name(v["name"], finding.name)]
        candidates = by_name or [v for v in same_file if v["line"] == finding.line]
        if not candidates:
            continue
        chosen = min(candidates, key=lambda v: abs(v["line"] - finding.line))
        unused.remove(chosen)
        finding.verdict, finding.reason, finding.location = chosen["verdict"], chosen["reason"], chosen["location"]
        finding.matched = id(chosen)
    return unused


def precision(findings: List[Finding]) -> Tuple[int, int, Optional[float]]:
    judged = [f for f in findings if f.verdict in VERDICTS]
    right = sum(1 for f in judged if f.verdict in ("true", "intended"))
    return right, len(judged), (right / len(judged) if judged else None)


DEFINED_AT = re.compile(r"defined at `(?P<module>[\w.]+)` line \d+")


def real_pins(findings: List[Finding], verdicts: List[Dict[str, Any]], misses: List[Dict[str, Any]]) -> Tuple[int, int]:
    """``(found, recorded)`` over every real pin recorded: each verdict ever judged true or intended (whether
    a finding still matches it or not) and each recorded miss (``recall``'s ``found``)."""
    right = [v for v in verdicts if v["verdict"] in ("true", "intended")]
    reported = {f.matched for f in findings}
    right_ids = {id(v) for v in right}
    # a miss that a later finding reports was judged again as that finding's verdict: one pin, counted once
    # (the finding may be in another file: a store into another module's instance, reported where it is made)
    alone = [
        m for m in misses
        if not any(v["repo"] == m["repo"] and v["path"] == m["path"] and (on_the_line(v, m) or any(names_object_or_its_state(name, missed) for name in [v["name"], *hooks_registered(v["name"])] for missed in names_recorded(m["name"]))) for v in right)
        and not any(f.matched in right_ids and f.repo == m["repo"] and names_the_miss(f, m) for f in findings)
    ]
    found = sum(1 for v in right if id(v) in reported) + sum(1 for miss in alone if miss["found"])
    return found, len(right) + len(alone)


def on_the_line(verdict: Dict[str, Any], miss: Dict[str, Any]) -> bool:
    """A verdict on the very line a miss was recorded at is about that miss, whatever each calls it."""
    return miss.get("line") is not None and verdict.get("line") == miss["line"]


def outside_programs(misses: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The misses that are not a program's own top-level state (``program_global``: a model an app or
    script keeps in a top-level name for its run), which the linter leaves alone by design."""
    return [miss for miss in misses if not miss.get("program_global")]


def recall(findings: List[Finding], missed: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Each recorded miss with ``found`` set when a finding names it: in the same file, or reported where
    another module fills it, whose message says it is ``defined at `pkg.module` line N`` in the miss's file."""
    result = []
    for miss in missed:
        found = any(f.repo == miss["repo"] and names_the_miss(f, miss) for f in findings)
        result.append({**miss, "found": found})
    return result


def names_the_miss(finding: Finding, miss: Dict[str, Any]) -> bool:
    """A finding names a miss by its container's name, or by standing on the very line the reader recorded: a
    hook's finding names the registration (`mod.register_forward_hook(...)`) where the reader named the hook."""
    if finding.path == miss["path"]:
        return finding.line == miss.get("line") or miss.get("line") in stored_by_hook(finding) or any(
            names_object_or_its_state(name, missed) or missed.rpartition(".")[2] in kept_by(finding)
            for name in holders_named(finding) for missed in names_recorded(miss["name"])
        )
    defined = DEFINED_AT.search(finding.message)
    module_path = miss["path"].removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    if defined is None or not f".{module_path}".endswith(f".{defined.group('module')}"):
        return False
    name = re.sub(r"\.\w+\(\)", "", finding.name)  # ``M.get_instance().x`` is ``M.x``
    return any(names_object_or_its_state(name, missed) for missed in names_recorded(miss["name"]))


DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def names_recorded(recorded: str) -> List[str]:
    """The names a reader wrote for one miss: ``default_censor (Censor.safety_checker_model)`` names the
    instance and the attribute that holds the model, ``ip_adapters (with clip_vision, ip_negative)`` three
    slots, ``A.x / A.y`` two. Parentheses that say more than names (``closure of ...``) leave the whole text
    as the one name, as it was recorded."""
    head, _, aside = recorded.partition(" (")
    asides = [piece.strip().strip("`") for piece in re.split(r",\s*| / ", aside.removesuffix(")").removeprefix("with "))] if aside else []
    if not all(DOTTED_NAME.fullmatch(piece) for piece in asides):
        return [recorded]
    return [*(piece.strip().strip("`") for piece in head.split(" / ")), *asides]


ALSO_HELD = re.compile(r"\(also (?P<names>`[^)]*`)\)")


def holders_named(finding: Finding) -> List[str]:
    """The container a finding names, then the other instances' containers its message lists
    (``rmse.preds`` ... ``(also `exp_rmspe.preds`)``)."""
    also = ALSO_HELD.search(finding.message)
    return [finding.name, *hooks_registered(finding.name)] + (re.findall(r"`([^`]+)`", also.group("names")) if also else [])


def kept_by(finding: Finding) -> List[str]:
    """The method that keeps what a finding says is handed to it (``passed to `manager.register_module_override`
    at line 191, which keeps it``), where a reader records that call (``GlobalOptimManager.get_instance()
    .register_module_override``) rather than the container it fills."""
    return KEPT_BY.findall(finding.message)


KEPT_BY = re.compile(r"passed to `(?:[^`]*\.)?(\w+)` at line \d+, which keeps it")


def stored_by_hook(finding: Finding) -> List[int]:
    """The line of what a hook's finding says the hook stores (``what the hook stores (`self._cls_patch`,
    line 107)``), where a reader records that state rather than the registration."""
    return [int(line) for line in STORED_BY_HOOK.findall(finding.message)] if finding.code == "WG010" else []


STORED_BY_HOOK = re.compile(r"what (?:the hook|it) stores \(`[^`]+`, line (\d+)\)")


def hooks_registered(name: str) -> List[str]:
    """The hook a registration names (WG010 names ``layer.register_forward_hook(_capture)``, where a reader
    records the hook, ``_capture``)."""
    return REGISTERED_HOOK.findall(name)


REGISTERED_HOOK = re.compile(r"\bregister_\w*hook\(\s*(?:functools\.)?(?:partial\(\s*)?(?!lambda\b)([A-Za-z_][\w.]*)")


def names_object_or_its_state(name: str, missed: str) -> bool:
    """A miss recorded as a module-level instance (``rmse``) is found by a finding on its state (``rmse.preds``):
    the attribute is what pins, the instance is what a reader recorded. A singleton's state is its class's:
    ``M._instance.x``, ``M.get_instance().x`` and ``M().x`` name the ``M.x`` a reader records."""
    name = SINGLETON_HOP.sub("", name)
    return same_name(name, missed) or name.startswith(missed + ".")


SINGLETON_HOP = re.compile(r"\.(?:\w+\(\)|_?instance)(?=\.)|\(\)(?=\.)")  # ``M().x``, a metaclass singleton's, too


def fetch_instructions(repositories: List[Dict[str, Any]], root: Path) -> List[str]:
    lines = [
        f"To reproduce, unpack each repository at its commit into {root}/owner+name (only *.py files are needed), e.g.",
        "  git clone --filter=blob:none https://github.com/OWNER/NAME /tmp/NAME",
        f"  mkdir -p {root}/OWNER+NAME && git -C /tmp/NAME archive COMMIT -- '*.py' | tar -x -C {root}/OWNER+NAME",
        "or, with the session's fetch tool (it brings the newest snapshot: check that its HEAD is the commit below):",
        "  fetch github:OWNER/NAME",
        f"  git --git-dir=/work/.mirror/OWNER+NAME/repo archive COMMIT -- '*.py' | tar -x -C {root}/OWNER+NAME",
        "",
    ]
    lines += [f"  {r['repo']:<40} {r['commit']}" for r in repositories]
    return lines


def percent(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def report(results: List[RepoResult], stale: List[Dict[str, Any]], misses: List[Dict[str, Any]], root: Path,
           repositories: List[Dict[str, Any]], pins: Tuple[int, int], in_scope: Tuple[int, int]) -> str:
    out: List[str] = []
    present = [r for r in results if r.ran]
    for r in results:
        if not r.present:
            out.append(f"note: {r.repo} is not under {root / directory_name(r.repo)}: skipped")
        elif not r.ran:
            out.append(f"note: {r.repo} skipped by --quick")
    if any(not r.ran for r in results):
        out.append("")
    out.append("| repository | files | findings | true | intended | false | unjudged | stderr | seconds |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    for r in present:
        out.append(
            f"| {r.repo} | {r.files} | {len(r.findings)} | {r.count('true')} | {r.count('intended')} | "
            f"{r.count('false')} | {r.count(None)} | {r.stderr_lines} | {r.seconds:.1f} |"
        )
    every = [f for r in present for f in r.findings]
    total = lambda verdict: sum(1 for f in every if f.verdict == verdict)  # noqa: E731
    out.append(
        f"| **all {len(present)} run** | {sum(r.files for r in present)} | {len(every)} | {total('true')} | "
        f"{total('intended')} | {total('false')} | {total(None)} | {sum(r.stderr_lines for r in present)} | "
        f"{sum(r.seconds for r in present):.1f} |"
    )
    out.append("")
    right, judged, value = precision(every)
    library = [f for f in every if f.location == "library"]
    lib_right, lib_judged, lib_value = precision(library)
    out.append(f"precision (true + intended) / judged: {right}/{judged} = {percent(value)}")
    out.append(f"precision, library code only:        {lib_right}/{lib_judged} = {percent(lib_value)}")
    checked = [m for m in misses if any(r.ran and r.repo == m["repo"] for r in results)]
    found = [m for m in checked if m["found"]]
    not_run = len(misses) - len(checked)
    out.append(f"recall over every recorded real pin (verdicts true or intended, and misses): {pins[0]}/{pins[1]} = "
               f"{percent(pins[0] / pins[1] if pins[1] else None)}")
    if in_scope != pins:
        out.append(f"recall without the misses marked program_global (a program's own top-level state): {in_scope[0]}/{in_scope[1]} = "
                   f"{percent(in_scope[0] / in_scope[1] if in_scope[1] else None)}")
    out.append(f"recall against missed.json: {len(found)}/{len(checked)} recorded misses now reported"
               + (f" ({not_run} in repositories not run are not counted)" if not_run else ""))
    classes: Dict[str, List[int]] = {}
    for m in checked:
        counts = classes.setdefault(m["class"], [0, 0])
        counts[0] += int(m["found"])
        counts[1] += 1
    for name, (hit, count) in sorted(classes.items(), key=lambda item: (-item[1][1], item[0])):
        out.append(f"  {hit}/{count}  {name}")
    unjudged = [f for f in every if f.verdict is None]
    out.append("")
    out.append(f"unjudged findings ({len(unjudged)}): judge each and add it to benchmarks/sweep/verdicts.json")
    for f in unjudged:
        out.append(f"  {f.repo} {f.path}:{f.line}: {f.code} `{f.name}`: {f.message}")
    gone = [v for v in stale if any(r.ran and r.repo == v["repo"] for r in results)]
    out.append("")
    out.append(f"judged but no longer reported ({len(gone)}): a false positive fixed, or a true one lost")
    for v in gone:
        out.append(f"  {v['verdict']:<8} {v['repo']} {v['path']}:{v['line']}: {v['code']} `{v['name']}`")
    out.append("")
    out.extend(fetch_instructions(repositories, root))
    return "\n".join(out)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root_positional", nargs="?", type=Path, metavar="ROOT", help="the sweep directory (same as --root)")
    parser.add_argument("--root", type=Path, help=f"directory holding owner+name trees (default {DEFAULT_ROOT})")
    parser.add_argument("--data", type=Path, default=DATA, help="directory of the judged data (default benchmarks/sweep)")
    parser.add_argument("--weakglobals", metavar="PROGRAM", help="run this program instead of this checkout's linter")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the tables")
    parser.add_argument("--quick", action="store_true", help="only the three smallest present repositories (a smoke run)")
    arguments = parser.parse_args(argv)
    if arguments.root and arguments.root_positional and arguments.root != arguments.root_positional:
        parser.error("give the root once")
    root: Path = arguments.root or arguments.root_positional or DEFAULT_ROOT
    try:
        repositories = load_json_list(arguments.data / "repositories.json", ("repo", "commit", "files"))
        verdicts = load_json_list(
            arguments.data / "verdicts.json", ("repo", "path", "line", "code", "name", "verdict", "reason", "location")
        )
        missed = load_json_list(arguments.data / "missed.json", ("repo", "path", "line", "name", "class", "reason"))
        for v in verdicts:
            if v["verdict"] not in VERDICTS or v["location"] not in LOCATIONS:
                raise UsageError(f"verdicts.json: {v['repo']} {v['path']}:{v['line']}: bad verdict or location")
        results = [
            RepoResult(r["repo"], r["commit"], r["files"], (root / directory_name(r["repo"])).is_dir()) for r in repositories
        ]
        to_run = [r for r in results if r.present]
        if arguments.quick:
            to_run = sorted(to_run, key=lambda r: r.files)[:3]
        for result in to_run:
            result.ran = True
        command, environment = linter_command(arguments.weakglobals)
        by_repo = {r["repo"]: r for r in repositories}
        for result in to_run:
            result.findings, result.exit_code, result.stderr_lines, result.seconds = run_linter(
                command, environment, root, by_repo[result.repo]
            )
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    every = [f for r in results for f in r.findings]
    present_repos = {r.repo for r in results if r.ran}
    stale = match_verdicts(every, [v for v in verdicts if v["repo"] in present_repos])
    misses = recall(every, missed)
    judged_here = [v for v in verdicts if v["repo"] in present_repos]
    pins = real_pins(every, judged_here, [m for m in misses if m["repo"] in present_repos])
    in_scope = real_pins(every, judged_here, outside_programs([m for m in misses if m["repo"] in present_repos]))
    if arguments.json:
        right, judged, value = precision(every)
        lib = precision([f for f in every if f.location == "library"])
        print(json.dumps({
            "root": str(root),
            "repositories": [{**{k: v for k, v in asdict(r).items() if k != "findings"},
                              "counts": {k: r.count(k) for k in VERDICTS} | {"unjudged": r.count(None)}} for r in results],
            "precision": {"right": right, "judged": judged, "value": value},
            "precision_library": {"right": lib[0], "judged": lib[1], "value": lib[2]},
            "real_pins": {"found": pins[0], "recorded": pins[1], "value": pins[0] / pins[1] if pins[1] else None},
            "real_pins_outside_programs": {"found": in_scope[0], "recorded": in_scope[1],
                                           "value": in_scope[0] / in_scope[1] if in_scope[1] else None},
            "recall": {"found": sum(1 for m in misses if m["found"] and m["repo"] in present_repos),
                       "recorded": sum(1 for m in misses if m["repo"] in present_repos),
                       "misses": misses},
            "findings": [asdict(f) for f in every],
            "no_longer_reported": stale,
            "fetch": [
                {"repo": r["repo"], "commit": r["commit"], "directory": str(root / directory_name(r["repo"]))}
                for r in repositories
            ],
        }, indent=1))
    else:
        print(report(results, stale, misses, root, repositories, pins, in_scope))
    return 0


if __name__ == "__main__":
    sys.exit(main())
