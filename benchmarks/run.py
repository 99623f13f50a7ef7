"""mcpgen benchmarks: generation, parsing, import time and memory, side by side with baselines.

Usage: python benchmarks/run.py [--quick] [--schema-dir DIR] [--reps N] [--only PART] [--mode MODE] [--against DIR] [--json FILE]

Every number is a median over repetitions, and each baseline runs interleaved with what it is
compared against, so that load from other processes hits both alike.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
QUICK_REVISION = "2025-11-25"
BIN = Path(sys.executable).parent
TARGETS = {
    "generation": ("<=", 0.6),
    "against": ("<=", 1.0),
    "check": ("<=", 2.0),
    "all-vs-one": ("<=", 3.0),
    "parse": (">=", 3.0),
    "import": ("<=", 0.6),
    "multi": (">=", 0.8),
    "http": (">=", 6.0),
    "http-floor": (">=", 0.5),
    "tap": ("<=", 1.5),
    "stdio": (">=", 10.0),
}


@dataclass(frozen=True)
class Run:
    """One child process: wall seconds, CPU seconds (user+sys) and peak RSS in MiB."""

    wall: float
    cpu: float
    rss_mib: float


def run_child(argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> Run:
    """Run `argv` to completion; its wall time and, from wait4, its CPU time and peak RSS (descendants included)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"benchmark child failed ({proc.returncode}): {' '.join(argv)}\n{err.decode(errors='replace')}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def median(values: list[float]) -> float:
    """The median of `values`."""
    return statistics.median(values)


def fmt_ratio(ratio: float, target: str) -> str:
    """`ratio` with the target it is held to and whether it meets it."""
    op, bound = TARGETS[target]
    met = ratio <= bound if op == "<=" else ratio >= bound
    return f"{ratio:5.2f}x (target {op} {bound}x: {'met' if met else 'NOT met'})"


def _http_ratio(ratio: float, target: str) -> str:
    """An HTTP ratio, held to its target where it has one (per server CPU second: the SDK, the bare floor)."""
    return fmt_ratio(ratio, target) if target else f"{ratio:5.2f}x"


class Table:
    """Rows printed as they come and kept for the markdown summary."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str]] = []

    def add(self, what: str, ours: str, baseline: str, ratio: str) -> None:
        """Record and print one row."""
        self.rows.append((what, ours, baseline, ratio))
        print(f"  {what:<44} {ours:>16}  {baseline:>16}  {ratio}", flush=True)

    def markdown(self) -> str:
        """The rows as a markdown table."""
        lines = ["| benchmark | mcpgen | baseline | ratio |", "| --- | --- | --- | --- |"]
        lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in self.rows]
        return "\n".join(lines)

    def records(self) -> list[dict[str, Any]]:
        """The rows with each ratio, and the target it is held to, as numbers (None where a row has none)."""
        out = []
        for what, ours, baseline, ratio in self.rows:
            found = _RATIO.match(ratio)
            target = None
            if found and found["op"]:
                target = {"op": found["op"], "bound": float(found["bound"]), "met": found["met"] == "met"}
            value = float(found["ratio"]) if found else None
            out.append({"benchmark": what.strip(), "mcpgen": ours, "baseline": baseline, "ratio": value, "target": target})
        return out


_RATIO = re.compile(r"\s*(?P<ratio>\d+(?:\.\d+)?)x(?: \(target (?P<op><=|>=) (?P<bound>[\d.]+)x: (?P<met>met|NOT met)\))?")


def write_json(path: Path, table: Table, parts: list[str], reps: int, argv: list[str]) -> None:
    """The results as JSON (`mcpgen-bench/1`), the input of benchmarks/plot.py, with the command that measured
    them (`argv`, less `--json FILE`)."""
    machine = {"python": sys.version.split()[0], "cpus": os.cpu_count(), "load": round(os.getloadavg()[0], 1)}
    shown = [arg for i, arg in enumerate(argv) if arg != "--json" and (i == 0 or argv[i - 1] != "--json")]
    command = shlex.join(["python", "benchmarks/run.py", *shown])
    results = {"format": "mcpgen-bench/1", "date": time.strftime("%Y-%m-%d"), **machine, "reps": reps, "parts": parts, "command": command}
    path.write_text(json.dumps({**results, "rows": table.records()}, indent=1) + "\n", "utf-8")


def mcpgen_argv(revision: str, out: Path, schema_dir: Path) -> list[str]:
    """The mcpgen command line for one generation."""
    return [str(BIN / "mcpgen"), "--revision", revision, "-o", str(out), "--schema-dir", str(schema_dir), "--force"]


def module_argv(revision: str, out: Path, schema_dir: Path) -> list[str]:
    """The same generation as `python -m mcpgen` (which mcpgen it runs is PYTHONPATH's to say)."""
    return [sys.executable, "-m", "mcpgen", *mcpgen_argv(revision, out, schema_dir)[1:]]


def check_argv(package: Path) -> list[str]:
    """`mcpgen check` of a generated package (no schema options: the schema bytes come from the cache)."""
    return [str(BIN / "mcpgen"), "check", str(package)]


def start_argv() -> list[str]:
    """`mcpgen --version`: what every mcpgen command pays to start (the interpreter, click, the CLI module)."""
    return [str(BIN / "mcpgen"), "--version"]


def codegen_argv(schema: Path, out: Path) -> list[str]:
    """The datamodel-codegen command line with the model options mcpgen uses, and its default formatters."""
    return [
        str(BIN / "datamodel-codegen"),
        "--input", str(schema),
        "--input-file-type", "jsonschema",
        "--output-model-type", "pydantic_v2.BaseModel",
        "--target-python-version", "3.10",
        "--field-constraints",
        "--enum-field-as-literal", "all",
        "--use-schema-description",
        "--formatters", "black", "isort",
        "--disable-timestamp",
        "--output", str(out),
    ]  # fmt: skip


def bench_generation(
    revisions: tuple[str, ...], schema_dir: Path, reps: int, work: Path, table: Table, against: Path | None = None
) -> None:
    """mcpgen cold (empty cache) and warm (second run) against datamodel-codegen, per revision; `all` against one.

    A warm `check` (the package cache filled by the generate before it) is held, in CPU time, against
    `mcpgen --version` (the start every command pays), both as the environment runs them and with their
    modules' bytecode cached as an installed mcpgen has it (`installed_like`), and shown against the cold
    generate.
    With `against` (a directory another mcpgen was installed into, `pip install --no-deps --target DIR`),
    each cold generation also runs with that mcpgen first on PYTHONPATH, interleaved with this one's.
    """
    print("\n== generation (subprocess, fresh interpreter; wall median) ==", flush=True)
    print(f"  {'':<44} {'mcpgen':>16}  {'baseline':>16}  ratio", flush=True)
    single: dict[str, float] = {}
    peaks: list[float] = []
    for revision in revisions:
        cold, warm, base, check, start, mine, other = [], [], [], [], [], [], []
        check_compiled, start_compiled = [], []
        for rep in range(reps):
            cache = work / f"cache-{revision}-{rep}"
            env = {**os.environ, "MCPGEN_CACHE_DIR": str(cache)}
            if against is not None:
                sides = ((other, [str(against)]), (mine, []))
                for runs, path in sides[:: 1 if rep % 2 else -1]:  # each into an empty cache and directory
                    pythonpath = os.pathsep.join([*path, *filter(None, [os.environ.get("PYTHONPATH")])])
                    paired = {**env, "MCPGEN_CACHE_DIR": str(work / "paired-cache"), "PYTHONPATH": pythonpath}
                    runs.append(run_child(module_argv(revision, work / "paired", schema_dir), env=paired))
                    for leftover in ("paired-cache", "paired"):
                        shutil.rmtree(work / leftover, ignore_errors=True)
            base.append(run_child(codegen_argv(schema_dir / revision / "schema.json", work / "dmcg.py")))
            cold.append(run_child(mcpgen_argv(revision, work / "pkg", schema_dir), env=env))
            warm.append(run_child(mcpgen_argv(revision, work / "pkg", schema_dir), env=env))
            offline = {k: v for k, v in env.items() if k != "MCPGEN_SCHEMA_DIR"}
            check.append(run_child(check_argv(work / "pkg"), env=offline))
            start.append(run_child(start_argv(), env=offline))
            compiled = installed_like(offline, work)
            for runs, argv in ((check_compiled, check_argv(work / "pkg")), (start_compiled, start_argv())):
                run_child(argv, env=compiled)  # writes the bytecode the timed run reads
                runs.append(run_child(argv, env=compiled))
            shutil.rmtree(cache, ignore_errors=True)
        c, w, b, k = (median([r.wall for r in runs]) for runs in (cold, warm, base, check))
        single[revision] = c
        peaks.append(max(r.rss_mib for r in cold))
        table.add(f"generate {revision} (cold cache)", f"{c:.2f} s", f"{b:.2f} s dmcg", fmt_ratio(c / b, "generation"))
        cpu_c, cpu_b = median([r.cpu for r in cold]), median([r.cpu for r in base])
        table.add(f"  cpu time {revision}", f"{cpu_c:.2f} s", f"{cpu_b:.2f} s dmcg", f"{cpu_c / cpu_b:5.2f}x")
        table.add(f"generate {revision} (second run, cached)", f"{w:.2f} s", f"{b:.2f} s dmcg", f"{w / b:5.2f}x")
        table.add(f"check {revision} (warm, offline)", f"{k:.2f} s", f"{c:.2f} s cold generate", f"{k / c:5.2f}x")
        cpu_k, cpu_s = median([r.cpu for r in check]), median([r.cpu for r in start])
        table.add(f"  check cpu time {revision}", f"{cpu_k:.3f} s", f"{cpu_s:.3f} s mcpgen --version", fmt_ratio(cpu_k / cpu_s, "check"))
        cpu_k, cpu_s = median([r.cpu for r in check_compiled]), median([r.cpu for r in start_compiled])
        table.add(f"  check cpu time {revision}, bytecode cached", f"{cpu_k:.3f} s", f"{cpu_s:.3f} s mcpgen --version", fmt_ratio(cpu_k / cpu_s, "check"))
        if against is not None:
            m, o = median([r.wall for r in mine]), median([r.wall for r in other])
            table.add(f"generate {revision} (cold, python -m)", f"{m:.2f} s", f"{o:.2f} s --against", fmt_ratio(m / o, "against"))
        rss_b = median([r.rss_mib for r in base])
        table.add(f"  peak RSS {revision}", f"{median([r.rss_mib for r in cold]):.0f} MiB", f"{rss_b:.0f} MiB dmcg", "")
    if len(revisions) == 1 and revisions[0] != QUICK_REVISION:
        return
    one = single.get(QUICK_REVISION) or next(iter(single.values()))
    runs = []
    for rep in range(reps):
        env = {**os.environ, "MCPGEN_CACHE_DIR": str(work / f"cache-all-{rep}")}
        runs.append(run_child(mcpgen_argv("all", work / "all", schema_dir), env=env))
        shutil.rmtree(work / f"cache-all-{rep}", ignore_errors=True)
    a = median([r.wall for r in runs])
    table.add("generate --revision all (cold cache)", f"{a:.2f} s", f"{one:.2f} s one rev", fmt_ratio(a / one, "all-vs-one"))
    table.add("  peak RSS --revision all", f"{max(r.rss_mib for r in runs):.0f} MiB", "", "")


def doc_messages(schema_dir: Path, revision: str) -> list[bytes]:
    """The strict-JSON doc examples of `revision` that are JSON-RPC requests or notifications, as bytes."""
    root = schema_dir / revision / "doc-examples"
    found = []
    for entry in json.loads((root / "index.json").read_text("utf-8")):
        if not entry.get("strict_json"):
            continue
        data = (root / entry["file"]).read_bytes()
        obj = json.loads(data)
        if isinstance(obj, dict) and obj.get("jsonrpc") == "2.0" and isinstance(obj.get("method"), str):
            found.append(data)
    return found


def official_parser(revision: str) -> Callable[[bytes], Any]:
    """mcp_types' full path: the JSON-RPC envelope adapter, then the per-method surface+monolith parse."""
    import mcp_types
    from mcp_types import methods

    adapter = mcp_types.jsonrpc_message_adapter

    def parse(data: bytes) -> Any:
        msg = adapter.validate_json(data)
        if isinstance(msg, mcp_types.JSONRPCRequest):
            if (msg.method, revision) in methods.CLIENT_REQUESTS:
                return methods.parse_client_request(msg.method, revision, msg.params)
            return methods.parse_server_request(msg.method, revision, msg.params)
        if (msg.method, revision) in methods.CLIENT_NOTIFICATIONS:
            return methods.parse_client_notification(msg.method, revision, msg.params)
        return methods.parse_server_notification(msg.method, revision, msg.params)

    return parse


def accepted(parse: Callable[[bytes], Any], messages: list[bytes]) -> list[bytes]:
    """The messages `parse` accepts."""
    ok = []
    for data in messages:
        try:
            parse(data)
        except Exception:
            continue
        ok.append(data)
    return ok


def throughput(parse: Callable[[bytes], Any], messages: list[bytes], seconds: float) -> float:
    """Messages per CPU second of `parse` over `messages`, looped for about `seconds` of CPU time (other
    processes on the machine then slow neither side)."""
    return interleaved([parse], messages, seconds)[0]


TURN = 0.02
"""CPU seconds of passes one parser runs before the next takes its turn. A turn of one pass measures
each parser with the processor's caches as the other left them: mcp_types' pass evicts enough that
the generated package's next pass ran 18-24% slower than alone, while mcp_types' own speed did not
change (docs/performance.md, Parsing); 20 ms of passes spends that warm-up once per turn, and load
from other processes still falls on both alike."""


def interleaved(
    parsers: list[Callable[[bytes], Any]], messages: list[bytes], seconds: float, turn: float = TURN
) -> list[float]:
    """Messages per CPU second of each of `parsers` over `messages`, taking turns of whole passes for
    at least `turn` CPU seconds (0: one pass a turn), in an order that alternates, for about `seconds`
    of CPU time each: a change in the machine's load meanwhile falls on all of them alike."""
    for parse in parsers:
        for data in messages:  # warm-up: lazy builds, caches
            parse(data)
    spent = [0.0] * len(parsers)
    passes = [0] * len(parsers)
    turns = 0
    while min(spent) < seconds:
        order = range(len(parsers)) if turns % 2 else reversed(range(len(parsers)))
        for index in order:
            parse, start = parsers[index], time.process_time()
            while True:
                for data in messages:
                    parse(data)
                passes[index] += 1
                if time.process_time() - start >= turn:
                    break
            spent[index] += time.process_time() - start
        turns += 1
    return [done * len(messages) / cpu for done, cpu in zip(passes, spent)]


def server_handler(pkg: Any) -> Callable[[bytes], Any] | None:
    """`Server.handle` of the generated package on a server whose handlers do nothing, or None when absent."""
    import asyncio
    import inspect

    server_cls = getattr(pkg, "Server", None)
    handle = getattr(server_cls, "handle", None)
    if server_cls is None or handle is None:
        return None

    def stub(self: Any, *args: Any, **kwargs: Any) -> Any:
        return None

    async def astub(self: Any, *args: Any, **kwargs: Any) -> Any:
        return None

    members = {}
    for name in getattr(server_cls, "__abstractmethods__", ()):
        members[name] = astub if inspect.iscoroutinefunction(getattr(server_cls, name)) else stub
    server = type("BenchServer", (server_cls,), members)()
    loop = asyncio.new_event_loop()

    def handled(data: bytes) -> Any:
        # awaited whatever `handle` is: a plain function may hand on a coroutine (the runtime's does)
        reply = server.handle(data)
        return loop.run_until_complete(reply) if inspect.isawaitable(reply) else reply

    return handled


def generate_packages(revisions: tuple[str, ...], schema_dir: Path, work: Path) -> Path:
    """Each revision's package generated into `work`/parse (once), the directory put on sys.path."""
    out = work / "parse"
    if str(out) not in sys.path:
        out.mkdir(exist_ok=True)
        sys.path.insert(0, str(out))
        for revision in revisions:
            package = "mcp_" + revision.replace("-", "_")
            run_child(mcpgen_argv(revision, out / package, schema_dir), env={**os.environ, "MCPGEN_CACHE_DIR": str(work / "c")})
    return out


def bench_parse(revisions: tuple[str, ...], schema_dir: Path, seconds: float, reps: int, work: Path, table: Table) -> None:
    """The generated parse_message against mcp_types' full path, on the same bytes."""
    import importlib

    print("\n== parsing (doc-example requests and notifications; messages per CPU second, median) ==", flush=True)
    generate_packages(revisions, schema_dir, work)
    for revision in revisions:
        package = "mcp_" + revision.replace("-", "_")
        pkg = importlib.import_module(package)
        ours, official = pkg.parse_message, official_parser(revision)
        messages = accepted(official, accepted(ours, doc_messages(schema_dir, revision)))
        total = len(doc_messages(schema_dir, revision))
        if not messages:
            table.add(f"parse {revision}", "no messages", "", "")
            continue
        mine, base = [], []
        for _ in range(reps):
            b, m = interleaved([official, ours], messages, seconds)
            base.append(b)
            mine.append(m)
        m, b = median(mine), median(base)
        label = f"parse_message {revision} ({len(messages)}/{total} msgs)"
        table.add(label, f"{m / 1000:.1f}k msg/s", f"{b / 1000:.1f}k mcp_types", fmt_ratio(m / b, "parse"))
        b1, m1 = interleaved([official, ours], messages, seconds, turn=0.0)
        table.add(f"  turns of one pass {revision}", f"{m1 / 1000:.1f}k msg/s", f"{b1 / 1000:.1f}k mcp_types", f"{m1 / b1:5.2f}x")
        (import_m, first_m), (import_b, first_b) = first_pass(revision, messages, work, reps)
        table.add(f"  first pass, fresh interpreter {revision}", f"{first_m * 1000:.1f} ms", f"{first_b * 1000:.1f} ms mcp_types", f"{first_b / first_m:5.2f}x")
        both_m, both_b = import_m + first_m, import_b + first_b
        table.add(f"  import + first pass {revision}", f"{both_m * 1000:.0f} ms", f"{both_b * 1000:.0f} ms mcp_types", f"{both_b / both_m:5.2f}x")
        handler = server_handler(pkg)
        if handler is None:
            table.add(f"Server.handle {revision}", "n/a", "", "")
            continue
        handled = accepted(handler, messages)
        h = median([throughput(handler, handled, seconds) for _ in range(reps)]) if handled else 0.0
        table.add(f"Server.handle {revision} ({len(handled)} msgs)", f"{h / 1000:.1f}k msg/s", f"{b / 1000:.1f}k mcp_types", f"{h / b:5.2f}x")


_FIRST_PASS = """
import importlib, json, sys, time
sys.path[:0] = [{bench!r}, {packages!r}]
import run
messages = [text.encode("latin-1") for text in json.loads(open({listing!r}, encoding="utf-8").read())]
start = time.process_time()
parse = importlib.import_module({package!r}).parse_message if {ours!r} else run.official_parser({revision!r})
imported = time.process_time()
for data in messages:
    parse(data)
print(imported - start, time.process_time() - imported)
"""


def first_pass(revision: str, messages: list[bytes], work: Path, reps: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """CPU seconds of the import and of the first parse of each of `messages` after it in a fresh
    interpreter (every validator built on first use is built in the first parse), for the generated
    package's parse_message and for mcp_types' full path: (import, first pass) medians of `reps`
    interleaved runs, ours then mcp_types'."""
    listing = work / f"first-pass-{revision}.json"
    listing.write_text(json.dumps([data.decode("latin-1") for data in messages]), "utf-8")
    package = "mcp_" + revision.replace("-", "_")
    times: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    for _ in range(reps):
        for ours in (False, True):
            code = _FIRST_PASS.format(
                bench=str(Path(__file__).resolve().parent), packages=str(work / "parse"), listing=str(listing),
                package=package, ours=ours, revision=revision,
            )
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
            imported, parsed = done.stdout.split()
            times[ours].append((float(imported), float(parsed)))
    return tuple(tuple(median([t[i] for t in times[ours]]) for i in (0, 1)) for ours in (True, False))  # type: ignore[return-value]


_IMPORT = "import time; t = time.process_time(); {stmt}; print(time.process_time() - t)"
_OFFICIAL_IMPORT = "import mcp_types, mcp_types.methods"


def import_seconds(stmt: str, path: Path | None) -> float:
    """CPU seconds `stmt` takes in a fresh interpreter (interpreter start-up excluded)."""
    env = {**os.environ}
    if path is not None:
        env["PYTHONPATH"] = str(path)
    done = subprocess.run([sys.executable, "-c", _IMPORT.format(stmt=stmt)], env=env, capture_output=True, text=True, check=True)
    return float(done.stdout.strip())


def bench_import(revisions: tuple[str, ...], schema_dir: Path, reps: int, work: Path, table: Table) -> None:
    """`import` of a generated package (all its modules) against `import mcp_types, mcp_types.methods`
    (the official types and their method tables), fresh interpreters."""
    print("\n== import (fresh interpreters; CPU time, median) ==", flush=True)
    out = generate_packages(revisions, schema_dir, work)
    # The bytecode caches an installed or once-imported package has (mcp_types' were written by pip),
    # written even where PYTHONDONTWRITEBYTECODE would keep an import from writing them.
    compileall.compile_dir(out, quiet=1)
    for revision in revisions:
        package = "mcp_" + revision.replace("-", "_")
        stmt = f"import {package}.types, {package}.methods, {package}.server, {package}.client"
        import_seconds(stmt, out)  # warms the file system cache
        import_seconds(_OFFICIAL_IMPORT, None)
        mine, base = [], []
        for _ in range(reps):
            base.append(import_seconds(_OFFICIAL_IMPORT, None))
            mine.append(import_seconds(stmt, out))
        m, b = median(mine), median(base)
        table.add(f"import {package}", f"{m * 1000:.0f} ms", f"{b * 1000:.0f} ms mcp_types", fmt_ratio(m / b, "import"))


def bench_multi(revisions: tuple[str, ...], schema_dir: Path, seconds: float, reps: int, work: Path, table: Table) -> None:
    """Server.handle of the every-revision package at each revision against that revision's own package."""
    import importlib

    import multi_revision

    print("\n== multi-revision Server.handle (tools/list, tools/call, prompts/get, resources/read; messages per CPU second, median) ==", flush=True)
    out = work / "multi"
    out.mkdir(exist_ok=True)
    sys.path.insert(0, str(out))
    env = {**os.environ, "MCPGEN_CACHE_DIR": str(work / "c")}
    run_child(mcpgen_argv(multi_revision.MULTI, out / "multi_all", schema_dir), env=env)
    multi = importlib.import_module("multi_all")
    for revision in revisions:
        package = "mcp_" + revision.replace("-", "_")
        run_child(mcpgen_argv(revision, out / package, schema_dir), env=env)
        single = importlib.import_module(package)
        messages = multi_revision.requests(revision)
        mine, base = [], []
        for _ in range(reps):
            b, m = interleaved([multi_revision.handler(single, revision), multi_revision.handler(multi, revision)], messages, seconds)
            base.append(b)
            mine.append(m)
        m, b = median(mine), median(base)
        table.add(f"Server.handle multi-revision at {revision}", f"{m / 1000:.1f}k msg/s", f"{b / 1000:.1f}k {package}", fmt_ratio(m / b, "multi"))
def bench_http_echo(schema_dir: Path, reps: int, seconds: float, work: Path, table: Table, modes: tuple[str, ...]) -> None:
    """`tools/call` echo over Streamable HTTP under uvicorn: the generated app against the SDK's MCPServer and
    the bare ASGI floor, in session mode (2025-11-25) and stateless mode (2026-07-28)."""
    from http_bench import MODES, bench_http

    print("\n== Streamable HTTP (uvicorn, loopback; median rates, ratios paired by round) ==", flush=True)
    out = work / "http"
    for version in MODES.values():
        run_child(mcpgen_argv(version, out / ("mcp_" + version.replace("-", "_")), schema_dir))
    for mode in modes:
        for http in ("httptools", "h11"):
            bench_http(out, reps, seconds, lambda w, ours, base, ratio, target: table.add(w, ours, base, _http_ratio(ratio, target)), http, mode)


def bench_tap(schema_dir: Path, reps: int, calls: int, work: Path, table: Table) -> None:
    """What `mcpgen tap` costs a session: sequential tools/call through the tap against the same calls
    direct (stdio: held to the target; HTTP: stated)."""
    from tap_bench import bench_tap as run_tap_bench

    print(f"\n== mcpgen tap ({calls} sequential tools/call, seconds from initialize to the last answer; medians) ==", flush=True)
    out = work / "tap"
    run_child(mcpgen_argv("2025-11-25", out / "mcp_2025_11_25", schema_dir))

    def add(what: str, ours: str, base: str, ratio: float, transport: str) -> None:
        table.add(what, ours, base, fmt_ratio(ratio, "tap") if transport == "stdio" else f"{ratio:5.2f}x")

    run_tap_bench(out, reps, calls, add)


def bench_stdio(schema_dir: Path, reps: int, calls: int, work: Path, table: Table) -> None:
    """`tools/call` echo pipelined over stdio: the generated 2025-11-25 server against the SDK's MCPServer."""
    from stdio_bench import VERSION, bench_stdio as run_stdio_bench

    print(f"\n== stdio ({calls} tools/call pipelined; medians) ==", flush=True)
    out = work / "stdio"
    run_child(mcpgen_argv(VERSION, out / ("mcp_" + VERSION.replace("-", "_")), schema_dir))
    run_stdio_bench(out, reps, calls, lambda what, ours, base, ratio: table.add(what, ours, base, fmt_ratio(ratio, "stdio")))


def bench_fanout_latency(schema_dir: Path, reps: int, touches: int, work: Path, table: Table) -> None:
    """A `touch` heard by 1,000 listen streams: the README's Scaling out example on two workers through
    Redis, against one worker holding every stream (needs redis-server)."""
    from fanout_bench import bench_fanout

    print("\n== fan-out of resource updates (uvicorn, loopback, Redis; medians of each run's percentiles) ==", flush=True)
    out = work / "fanout"
    run_child(mcpgen_argv("2024-11-05..2026-07-28", out / "mcp_2024_11_05_to_2026_07_28", schema_dir))
    bench_fanout(out, reps, touches, table.add)


def installed_like(env: dict[str, str], work: Path) -> dict[str, str]:
    """`env` for an mcpgen that reads its modules' bytecode, as an installed one does: an editable install
    under PYTHONDONTWRITEBYTECODE compiles every module it imports at each start (check imports more of
    them than --version). The bytecode goes to a folder of the run's own (PYTHONPYCACHEPREFIX), never into
    the checkout; a first, untimed run of each command writes it."""
    compiled = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**compiled, "PYTHONPYCACHEPREFIX": str(work / "pycache")}


def uncompiled_modules() -> int:
    """How many of the installed mcpgen's modules Python would compile from source at every start."""
    import importlib.util

    import mcpgen

    sources = Path(mcpgen.__file__).parent.rglob("*.py")
    return sum(not Path(importlib.util.cache_from_source(str(source))).exists() for source in sources)


def main() -> None:
    """Run every benchmark and print a table (also as markdown at the end)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"one revision ({QUICK_REVISION}), fewer repetitions")
    parser.add_argument("--schema-dir", type=Path, default=Path(os.environ.get("MCPGEN_SCHEMA_DIR", Path(__file__).resolve().parents[2] / "shared" / "mcp-spec")))
    parser.add_argument("--reps", type=int, help="repetitions per measurement (default 5, quick 3)")
    parser.add_argument("--only", choices=("generation", "parse", "import", "multi", "http", "stdio", "fanout", "tap"), action="append", help="run only these parts")
    parser.add_argument("--mode", choices=("session", "stateless"), action="append", help="HTTP: only these modes")
    parser.add_argument("--against", type=Path, help="another mcpgen, installed with `pip install --no-deps --target DIR`: cold generation against it too "
                        "(this tree's side is whichever mcpgen PYTHONPATH and the environment give)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the results as JSON, for benchmarks/plot.py")
    args = parser.parse_args()
    if args.against is not None and not (args.against / "mcpgen" / "__init__.py").is_file():
        parser.error(f"--against {args.against}: no mcpgen installed there (pip install --no-deps --target DIR <checkout>)")
    if args.against is not None and args.only and "generation" not in args.only:
        parser.error("--against times generation: add --only generation")
    reps = args.reps or (3 if args.quick else 5)
    revisions = (QUICK_REVISION,) if args.quick else REVISIONS
    parts = args.only or ["generation", "parse", "import", "multi", "http", "stdio", "fanout", "tap"]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.1f}, reps {reps}")
    if uncompiled := uncompiled_modules():
        print(f"note: {uncompiled} of mcpgen's modules have no bytecode cache, so each run compiles them (an editable "
              "install with PYTHONDONTWRITEBYTECODE set): mcpgen's times are pessimistic; `python -m compileall generator` "
              "makes them what `pip install` gives")
    table = Table()
    with tempfile.TemporaryDirectory(prefix="mcpgen-bench-") as tmp:
        work = Path(tmp)
        if "generation" in parts:
            bench_generation(revisions, args.schema_dir, reps, work, table, args.against)
        if "parse" in parts:
            bench_parse(revisions, args.schema_dir, 0.3 if args.quick else 1.0, reps, work, table)
        if "import" in parts:
            bench_import(revisions, args.schema_dir, reps, work, table)
        if "multi" in parts:
            bench_multi(revisions, args.schema_dir, 0.3 if args.quick else 1.0, reps, work, table)
        if "http" in parts:
            bench_http_echo(args.schema_dir, reps, 1.0 if args.quick else 3.0, work, table, tuple(args.mode or ("session", "stateless")))
        if "stdio" in parts:
            bench_stdio(args.schema_dir, reps, 2000 if args.quick else 10000, work, table)
        if "fanout" in parts:
            bench_fanout_latency(args.schema_dir, reps, 10 if args.quick else 30, work, table)
        if "tap" in parts:
            bench_tap(args.schema_dir, reps, 100 if args.quick else 300, work, table)
    print("\n" + table.markdown())
    if args.json is not None:
        write_json(args.json, table, parts, reps, sys.argv[1:])


if __name__ == "__main__":
    main()
