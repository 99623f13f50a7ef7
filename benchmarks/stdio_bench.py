"""Stdio benchmark: `tools/call` echo pipelined over stdio, the generated 2025-11-25 server against the
official SDK's MCPServer (the servers of tap_bench.py). One driver for both: after `initialize`, it
writes every call at once from a thread and reads the answers as they come, so the server is never
idle waiting for the client; it checks every answer (the echoed text under the request's id).

Rates are calls per wall second and per second of the server process's own CPU time (read from
/proc, so Linux only), the steadier figure on a shared machine.

Usage: python stdio_bench.py PACKAGE_DIR [REPS] [CALLS]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
CALLS = 10000
VERSION = "2025-11-25"


def _cpu_seconds(pid: int) -> float:
    """The user and system CPU time a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _line(message: dict[str, object]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def pipelined(command: list[str], calls: int) -> tuple[float, float]:
    """Wall seconds and server CPU seconds for `calls` pipelined echo calls after `initialize`."""
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdin is not None and process.stdout is not None
    try:
        hello = {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}
        process.stdin.write(_line({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}))
        process.stdin.flush()
        if b'"result"' not in process.stdout.readline():
            raise SystemExit(f"{command}: initialize failed")
        process.stdin.write(_line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        process.stdin.flush()
        time.sleep(0.2)  # the server is idle again before the clock starts
        batch = b"".join(
            _line({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": f"call {i}"}}})
            for i in range(1, calls + 1)
        )

        def write() -> None:
            process.stdin.write(batch)  # type: ignore[union-attr]
            process.stdin.flush()  # type: ignore[union-attr]

        cpu, started = _cpu_seconds(process.pid), time.perf_counter()
        writer = threading.Thread(target=write)
        writer.start()
        answered = 0
        while answered < calls:
            message = json.loads(process.stdout.readline() or b"null")
            if message is None:
                raise SystemExit(f"{command}: the server closed its output after {answered} answers")
            if "id" not in message:
                continue
            if message["result"]["content"][0]["text"] != f"call {message['id']}":
                raise SystemExit(f"{command}: a wrong answer {message}")
            answered += 1
        wall, used = time.perf_counter() - started, _cpu_seconds(process.pid) - cpu
        writer.join()
        return wall, used
    finally:
        process.stdin.close()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def bench_stdio(package_dir: Path, reps: int, calls: int, add: Callable[[str, str, str, float], None]) -> None:
    """The generated server and the SDK's, `reps` rounds taking turns; medians of calls per wall and CPU second."""
    tap = str(HERE / "tap_bench.py")
    servers = {"mcpgen": [sys.executable, tap, "server", "generated", str(package_dir)], "sdk": [sys.executable, tap, "server", "sdk"]}
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in servers}
    for rep in range(reps):
        for name in list(servers)[:: 1 if rep % 2 else -1]:
            runs[name].append(pipelined(servers[name], calls))
    for index, unit in enumerate(("calls/s", "calls/CPU-s")):
        ours, base = (statistics.median(calls / run[index] for run in runs[name]) for name in servers)
        add(f"{calls} tools/call pipelined over stdio {VERSION}, {unit}", f"{ours / 1000:.2f}k", f"{base / 1000:.2f}k MCPServer", ours / base)


def main() -> None:
    """The benchmark on its own: PACKAGE_DIR holds a generated mcp_2025_11_25."""
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else CALLS
    bench_stdio(Path(sys.argv[1]), reps, calls, lambda what, ours, base, ratio: print(f"{what:<60} {ours:>10} {base:>18} {ratio:6.2f}x"))


if __name__ == "__main__":
    main()
