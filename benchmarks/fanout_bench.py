"""Fan-out benchmark: latency from a `touch` to the moment each of 1,000 listeners has read the update.

The server is the example of docs/scaling.md, as the page has it: two uvicorn workers with Redis
between them, 500 listen streams on each and every touch sent to the first; beside it, one worker holding
all 1,000 streams (through Redis, and with the in-process `Fanout` put in place of `RedisFanout`). Every
listener is a 2026-07-28 `subscriptions/listen` stream read by one asyncio client over raw sockets, so the
clock is one process's; a touch goes out once every listener has read the one before it. Latency is the
time a listener read the update minus the time the touch was sent; p50 and p99 over every (touch,
listener) pair of a run. Beside them, the CPU time Redis and the workers spent per touch (steadier than
latency on a shared machine; the load generator's own time is in the latencies, not in it).

Usage: python fanout_bench.py PACKAGE_DIR (a directory holding mcp_2024_11_05_to_2026_07_28).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from http_bench import cpu_seconds

HERE = Path(__file__).resolve().parent
PAGE = HERE.parent / "docs" / "scaling.md"
LISTENERS = 1000
WATCHED = "file:///bench/"
UPDATE = re.compile(rb'"uri":"file:///bench/(\d+)"')
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
REDIS_LINE = 'updates = RedisFanout(os.environ["REDIS_URL"])'


def example(in_process: bool) -> str:
    """The Python module of docs/scaling.md; with `in_process`, on the in-process `Fanout` instead of Redis."""
    (code,) = re.findall(r"```python\n(.*?)```", PAGE.read_text("utf-8"), re.S)
    if in_process:
        assert REDIS_LINE in code, "the documented example no longer makes its fan-out as the benchmark expects"
        code = code.replace(REDIS_LINE, "from mcp_2024_11_05_to_2026_07_28.runtime.fanout import Fanout\nupdates = Fanout()")
    return str(code)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _start(argv: list[str], port: int, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    import socket

    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                err = process.stderr.read().decode() if process.stderr else ""
                raise SystemExit(f"benchmark server did not start: {' '.join(argv)}\n{err}")
            time.sleep(0.05)


def _request(port: int, method: str, params: dict[str, object], name: str | None = None) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"_meta": META, **params}}).encode()
    named = f"Mcp-Name: {name}\r\n" if name else ""
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
        f"Mcp-Method: {method}\r\n{named}Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


@dataclass
class Touches:
    """When each touch was sent and when each listener read it."""

    sent: dict[int, float]
    read: dict[int, list[float]]
    everyone: dict[int, asyncio.Event]


async def _listen(port: int, touches: Touches, ready: Callable[[], None]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(_request(port, "subscriptions/listen", {"notifications": {"resourceSubscriptions": [WATCHED]}}))
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise SystemExit(f"listen refused: {head.decode(errors='replace')}")
    buffer, acknowledged = b"", False
    while True:
        data = await reader.read(65536)
        if not data:
            raise SystemExit("a listen stream ended")
        buffer += data
        if not acknowledged and b"subscriptions/acknowledged" in buffer:
            acknowledged = True
            ready()
        end = 0
        for match in UPDATE.finditer(buffer):
            touch, end = int(match[1]), match.end()
            touches.read[touch].append(time.perf_counter())
            if len(touches.read[touch]) == LISTENERS:
                touches.everyone[touch].set()
        buffer = buffer[end:] if end else buffer[-200:]


async def _touch(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, port: int, k: int) -> None:
    writer.write(_request(port, "tools/call", {"name": "touch", "arguments": {"uri": f"{WATCHED}{k}"}}, "touch"))
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in head.lower().split(b"\r\n") if line.startswith(b"content-length:"))
    body = await reader.readexactly(length)
    if not head.startswith(b"HTTP/1.1 200") or b"touched" not in body:
        raise SystemExit(f"touch failed: {head.decode(errors='replace')} {body[:300]!r}")


async def measure(
    listen_ports: list[int], touch_port: int, touches: int, cpu: Callable[[], float], warmup: int = 3
) -> tuple[list[float], float]:
    """Open LISTENERS streams spread evenly over `listen_ports`, touch `warmup + touches` times through
    `touch_port`: the latency of every (touch, listener) pair after the warm-up, in seconds, and the CPU
    seconds (`cpu()`: the servers') each measured touch cost."""
    total = warmup + touches
    record = Touches({}, {k: [] for k in range(total)}, {k: asyncio.Event() for k in range(total)})
    opened = asyncio.Event()
    count = [0]

    def ready() -> None:
        count[0] += 1
        if count[0] == LISTENERS:
            opened.set()

    streams = [
        asyncio.ensure_future(_listen(listen_ports[n % len(listen_ports)], record, ready))
        for n in range(LISTENERS)
    ]
    try:
        await asyncio.wait_for(opened.wait(), 120)
        reader, writer = await asyncio.open_connection("127.0.0.1", touch_port)

        async def touch(k: int) -> None:
            await asyncio.sleep(0.05)
            record.sent[k] = time.perf_counter()
            await _touch(reader, writer, touch_port, k)
            await asyncio.wait_for(record.everyone[k].wait(), 60)

        for k in range(warmup):
            await touch(k)
        spent = cpu()
        for k in range(warmup, total):
            await touch(k)
        spent = cpu() - spent
        writer.close()
    finally:
        for stream in streams:
            stream.cancel()
        await asyncio.gather(*streams, return_exceptions=True)
    return [t - record.sent[k] for k in range(warmup, total) for t in record.read[k]], spent / touches


def percentiles(latencies: list[float]) -> tuple[float, float]:
    """p50 and p99 of `latencies`."""
    cuts = statistics.quantiles(latencies, n=100, method="inclusive")
    return cuts[49], cuts[98]


class Deployment:
    """A redis-server and the example's workers: `workers` of them on Redis, or one on the in-process fan-out."""

    def __init__(self, package_dir: Path, work: Path, workers: int, in_process: bool = False) -> None:
        app = work / ("app-local" if in_process else "app")
        app.mkdir(parents=True, exist_ok=True)
        (app / "scaled.py").write_text(example(in_process), "utf-8")
        self.redis_port = _free_port()
        self.ports = [_free_port() for _ in range(workers)]
        env = {**os.environ, "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0", "PYTHONPATH": str(package_dir)}
        self.processes = [
            _start(["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], self.redis_port)
        ]
        for port in self.ports:
            argv = [sys.executable, "-m", "uvicorn", "scaled:app", "--port", str(port), "--app-dir", str(app), "--log-level", "warning"]
            self.processes.append(_start(argv, port, env))

    def cpu(self) -> float:
        """CPU seconds Redis and the workers have used so far."""
        return sum(cpu_seconds(process.pid) for process in self.processes)

    def close(self) -> None:
        """Stop every process."""
        for process in reversed(self.processes):
            process.kill()
            process.wait(30)


CONFIGURATIONS = {
    "2 workers + Redis": (2, False),
    "1 worker + Redis": (1, False),
    "1 worker, in-process": (1, True),
}


def bench_fanout(package_dir: Path, reps: int, touches: int, add: Callable[[str, str, str, str], None]) -> None:
    """Interleaved runs of every configuration; `add(what, ours, baseline, ratio)` records the medians of
    each run's p50 and p99 (the baseline: one worker through Redis, the same example)."""
    if shutil.which("redis-server") is None:
        print("  skipped: redis-server not found (Debian: apt-get install redis-server)", flush=True)
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))  # 1,000 streams, both ends
    runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in CONFIGURATIONS}
    with tempfile.TemporaryDirectory(prefix="mcpgen-fanout-") as tmp:
        for _ in range(reps):
            for name, (workers, in_process) in CONFIGURATIONS.items():
                deployment = Deployment(package_dir, Path(tmp), workers, in_process)
                try:
                    latencies, cpu = asyncio.run(measure(deployment.ports, deployment.ports[0], touches, deployment.cpu))
                finally:
                    deployment.close()
                runs[name].append((*percentiles(latencies), cpu))
                p50, p99, _ = runs[name][-1]
                print(
                    f"    {name}: p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, server CPU {cpu * 1000:.1f} ms a touch "
                    f"({len(latencies)} deliveries)",
                    flush=True,
                )
    base = "1 worker + Redis"
    for column, label in ((0, "p50"), (1, "p99"), (2, "server CPU a touch")):
        baseline = statistics.median(r[column] for r in runs[base])
        for name in ("2 workers + Redis", "1 worker, in-process"):
            ours = statistics.median(r[column] for r in runs[name])
            what = f"touch -> {LISTENERS:,} listeners, {name}, {label}"
            add(what, f"{ours * 1000:.1f} ms", f"{baseline * 1000:.1f} ms {base}", f"{ours / baseline:5.2f}x")


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent / "generated"
    bench_fanout(target, 3, 20, lambda what, ours, base, ratio: print(f"{what}: {ours} vs {base}: {ratio}"))
