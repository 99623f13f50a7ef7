"""Mutation testing of mcpgen: break the generator or the runtime one mutant at a time and report which
test files notice.

    python tests/mutation/run.py                 # every mutant against the default tests
    python tests/mutation/run.py --check         # only verify that every mutant still finds its target
    python tests/mutation/run.py --only roles.no-pairing-table --tests tests
    python tests/mutation/run.py --only runtime_ --tests tests/runtime   # the runtime's mutants alone
    python tests/mutation/run.py --jobs 2 --json report.json

Each mutant is applied to a fresh copy of mcpgen (every package of pyproject's `package-dir`: the
generator, `runtime/` as `mcpgen.runtime`, the templates, the schema data) in a temporary directory,
which is put first on PYTHONPATH for one pytest run (so the checkout is never modified). The runtime
tests run generated packages linked to that copy's `mcpgen.runtime`, so a runtime mutant reaches them.
The unmutated copy runs first: tests that fail there are deselected from the mutant runs and listed.
The golden diff (tests/test_generated.py) and the runtime copy check (tests/runtime/test_runtime_copy.py,
which compares text and layout) are never run: a mutant counts as killed only when a behaviour test fails.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from apply import Stale, build_tree, mutate
from mutants import MUTANTS, Mutant

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = "tests/test_generated.py"
NEVER = (GOLDEN, "tests/runtime/test_runtime_copy.py")
"""Tests that compare text, not behaviour: never run against a mutant."""
# Fast behaviour tests of the generator (no specification corpus), and the runtime's own tests (on real
# protocol tables: they need the corpus); `--tests tests` runs the whole suite instead.
DEFAULT_TESTS = (
    "tests/functional",
    "tests/test_naming.py",
    "tests/test_errata.py",
    "tests/test_source.py",
    "tests/runtime",
)


@dataclass
class Outcome:
    """One pytest run: the failing test ids by file, whether it timed out, and how long it took."""

    failed: dict[str, list[str]] = field(default_factory=dict)
    timed_out: bool = False
    seconds: float = 0.0
    stale: str | None = None

    @property
    def killed(self) -> bool:
        """True when some test failed or the run timed out."""
        return bool(self.failed) or self.timed_out


def _failures(report: Path) -> dict[str, list[str]]:
    """Failing and erroring test node ids from a JUnit report (xunit1, which names each test's file)."""
    failed: dict[str, list[str]] = {}
    if not report.is_file():
        return failed
    for case in ElementTree.parse(report).iter("testcase"):
        if case.find("failure") is None and case.find("error") is None:
            continue
        file = case.get("file") or case.get("name", "?").replace(".", "/") + ".py"
        if not case.get("classname"):  # a collection error: the whole file failed to import
            failed.setdefault(file, []).append(file)
            continue
        classes = [part for part in case.get("classname", "").split(".") if part[:1].isupper()]
        failed.setdefault(file, []).append("::".join([file, *classes, case.get("name", "?")]))
    return failed


def run_tests(tree: Path, tests: list[str], deselect: list[str], timeout: float) -> Outcome:
    """Run pytest on `tests` with the mcpgen copy in `tree` first on the path."""
    with tempfile.TemporaryDirectory(prefix="mcpgen-mutant-run-") as scratch:
        report = Path(scratch) / "junit.xml"
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")]).rstrip(
                os.pathsep
            ),
            "MCPGEN_CACHE_DIR": str(Path(scratch) / "cache"),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            "-o",
            "junit_family=xunit1",
            f"--junitxml={report}",
            "--continue-on-collection-errors",
            *(arg for never in NEVER for arg in ("--ignore", never)),
            *tests,
        ]
        command += [arg for test in deselect for arg in ("--deselect", test)]
        start = time.monotonic()
        try:
            subprocess.run(
                command,
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return Outcome(_failures(report), True, time.monotonic() - start)
        return Outcome(_failures(report), False, time.monotonic() - start)


def run_mutant(
    mutant: Mutant | None, tests: list[str], deselect: list[str], timeout: float
) -> Outcome:
    """Build a copy of mcpgen with `mutant` applied (None: unmutated) and run the tests against it."""
    with tempfile.TemporaryDirectory(prefix="mcpgen-mutant-") as scratch:
        try:
            tree = build_tree(ROOT, Path(scratch), mutant)
        except Stale as exc:
            return Outcome(stale=str(exc))
        return run_tests(tree, tests, deselect, timeout)


def select(mutants: tuple[Mutant, ...], only: list[str] | None) -> list[Mutant]:
    """The mutants `--only` names by id, id prefix or path prefix (all of them without `--only`)."""
    return [
        m
        for m in mutants
        if not only or any(m.id.startswith(o) or m.path.startswith(o) for o in only)
    ]


def check(mutants: list[Mutant]) -> list[tuple[Mutant, str]]:
    """The mutants whose target text is gone or ambiguous, with the reason."""
    stale = []
    for mutant in mutants:
        try:
            mutate((ROOT / mutant.path).read_text("utf-8"), mutant)
        except (Stale, OSError) as exc:
            stale.append((mutant, str(exc)))
    return stale


def _short(file: str) -> str:
    return file.removeprefix("tests/")


def report(
    results: dict[str, Outcome], mutants: list[Mutant], baseline: Outcome, tests: list[str]
) -> dict:
    """Print the kill matrix, the per-file counts, the score and the survivors; return them as data."""
    live = [m for m in mutants if results[m.id].stale is None]
    killed = [m for m in live if results[m.id].killed]
    by_file: dict[str, list[str]] = {}
    print(f"\n{'mutant':48} {'result':9} killed by")
    for m in mutants:
        outcome = results[m.id]
        status = (
            "STALE"
            if outcome.stale
            else "timeout" if outcome.timed_out else "killed" if outcome.killed else "SURVIVED"
        )
        files = sorted(outcome.failed)
        for file in files:
            by_file.setdefault(file, []).append(m.id)
        detail = (
            outcome.stale
            or ", ".join(f"{_short(f)} ({len(outcome.failed[f])})" for f in files)
            or m.note
        )
        print(f"{m.id:48} {status:9} {detail}")
    print("\nmutants killed per test file:")
    for file, ids in sorted(by_file.items(), key=lambda item: -len(item[1])):
        print(f"  {len(ids):4}  {_short(file)}")
    survivors = [m for m in live if not results[m.id].killed]
    stale = [m for m in mutants if results[m.id].stale]
    score = len(killed) / len(live) if live else 0.0
    print(
        f"\nscore: {len(killed)}/{len(live)} killed ({score:.1%}) by {' '.join(tests)} (never {', '.join(NEVER)})"
    )
    if stale:
        print(f"stale mutants (update tests/mutation/mutants.py): {', '.join(m.id for m in stale)}")
    if baseline.failed:
        print(
            f"failing before any mutation, deselected: {sum(len(v) for v in baseline.failed.values())} tests"
        )
    for m in survivors:
        print(f"  survivor {m.id}: {m.note}")
    return {
        "tests": tests,
        "score": {"killed": len(killed), "total": len(live), "stale": len(stale)},
        "baseline_failures": [t for ids in baseline.failed.values() for t in ids],
        "mutants": [
            {
                "id": m.id,
                "note": m.note,
                "stale": results[m.id].stale,
                "timed_out": results[m.id].timed_out,
                "killed_by": {f: len(t) for f, t in sorted(results[m.id].failed.items())},
                "seconds": round(results[m.id].seconds, 1),
            }
            for m in mutants
        ],
        "killed_per_file": {file: ids for file, ids in sorted(by_file.items())},
    }


def main(argv: list[str] | None = None) -> int:
    """Run the mutants; exit 1 when a mutant is stale or the unmutated code already fails to collect."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="ID",
        help="run only these mutants: ids, id prefixes (`runtime_` for the runtime's, `runtime_http` for"
        " its HTTP transport) or path prefixes (`runtime/`, `generator/emit/`)",
    )
    parser.add_argument(
        "--tests", nargs="+", default=list(DEFAULT_TESTS), help="test paths (default: %(default)s)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once (default 1)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=0,
        help="seconds per mutant (default: 5x the baseline, at least 300)",
    )
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--check", action="store_true", help="only check that every mutant finds its target"
    )
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = parser.parse_args(argv)
    mutants = select(MUTANTS, args.only)
    if args.list:
        for m in mutants:
            print(f"{m.id:48} {m.path}{'::' + m.scope if m.scope else ''}  {m.note}")
        return 0
    stale = check(mutants)
    for mutant, reason in stale:
        print(f"STALE {mutant.id}: {reason}")
    if args.check:
        print(f"{len(mutants) - len(stale)}/{len(mutants)} mutants find their target")
        return 1 if stale else 0
    started = time.monotonic()
    baseline = run_mutant(None, args.tests, [], 3600)
    deselect = [t for ids in baseline.failed.values() for t in ids]
    if any("::" not in t for t in deselect):
        print(f"the unmutated code fails to collect: {deselect}")
        return 1
    timeout = args.timeout or max(300.0, 5 * baseline.seconds)
    print(
        f"baseline: {baseline.seconds:.0f} s, {len(deselect)} failing tests deselected; "
        f"{len(mutants)} mutants, {args.jobs} at once"
    )
    results: dict[str, Outcome] = {}

    def one(mutant: Mutant) -> None:
        results[mutant.id] = run_mutant(mutant, args.tests, deselect, timeout)
        outcome = results[mutant.id]
        state = "stale" if outcome.stale else "killed" if outcome.killed else "SURVIVED"
        print(
            f"[{len(results)}/{len(mutants)}] {mutant.id}: {state} ({outcome.seconds:.0f} s)",
            flush=True,
        )

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        list(pool.map(one, mutants))
    data = report(results, mutants, baseline, args.tests)
    data["seconds"] = round(time.monotonic() - started)
    print(f"\ntook {data['seconds']} s")
    if args.json:
        args.json.write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
