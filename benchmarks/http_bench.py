"""HTTP benchmark: a `tools/call` echo over Streamable HTTP on loopback, the generated app against the official
SDK's `MCPServer` (mcp 2.3.0) and a bare ASGI app, all under uvicorn, one load generator for all.

Two modes: session (2025-11-25: one session opened with `initialize`, every call in it) and stateless
(2026-07-28: every call on its own, with its version and method in headers and `_meta`; the generated
app makes a fresh server per request, the SDK runs with `stateless_http=True`).

The load generator keeps `CONNECTIONS` keep-alive connections busy with one request in flight each,
using prebuilt request bytes (so its own cost is small and the same for all), and counts only answers
that are 200 and carry the echoed text (any other answer stops the benchmark). Per server it reports
requests per wall second (what a client sees on this machine, shared with the load generator and
whatever else runs), per second of the server process's own CPU time (what one saturated core serves:
steadier under other load, and not capped by the load generator), and the median and 99th percentile
of the time from writing a request to reading its whole answer.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
CONNECTIONS = 8
MODES = {"session": "2025-11-25", "stateless": "2026-07-28"}
META = {"io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": {}}


@dataclass(frozen=True)
class Rate:
    """One measurement of one server: requests per wall second and per server CPU second, latency in ms."""

    wall: float
    cpu: float
    p50: float
    p99: float


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _start(argv: list[str], port: int) -> subprocess.Popen[bytes]:
    """Start a server; what it logs goes to a file (a pipe nobody reads would stop it once full)."""
    log = tempfile.TemporaryFile()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise SystemExit(f"benchmark server did not start: {' '.join(argv)}\n{log.read().decode()}")
            time.sleep(0.05)


def _post(port: int, message: dict[str, Any], session: str | None, version: str) -> tuple[dict[str, str], bytes]:
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream", "mcp-protocol-version": version}
    if session:
        headers["mcp-session-id"] = session
    connection.request("POST", "/mcp", json.dumps(message), headers)
    response = connection.getresponse()
    body = response.read()
    found = {k.lower(): v for k, v in response.getheaders()}
    connection.close()
    return found, body


def open_session(port: int, version: str) -> str:
    """Initialize a session on the server at `port`; its Mcp-Session-Id."""
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}
    headers, _ = _post(port, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}, None, version)
    session = headers["mcp-session-id"]
    _post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session, version)
    return session


def request_bytes(port: int, mode: str, session: str | None, k: int) -> tuple[bytes, bytes]:
    """The bytes of connection `k`'s echo call (HTTP head and body) in `mode`, and the text its answer must echo."""
    version = MODES[mode]
    text = f"hello {k}"
    params: dict[str, Any] = {"name": "echo", "arguments": {"text": text}}
    head = [
        "POST /mcp HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
        f"MCP-Protocol-Version: {version}",
    ]
    if mode == "stateless":
        params["_meta"] = {"io.modelcontextprotocol/protocolVersion": version, **META}
        head += ["Mcp-Method: tools/call", "Mcp-Name: echo"]
    else:
        head.append(f"Mcp-Session-Id: {session}")
    body = json.dumps({"jsonrpc": "2.0", "id": k + 1, "method": "tools/call", "params": params}).encode()
    head.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body, json.dumps(text).encode()


async def _worker(port: int, request: bytes, expect: bytes, until: float, latencies: list[float]) -> tuple[int, int]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    ok = bad = 0
    while time.perf_counter() < until:
        sent = time.perf_counter()
        writer.write(request)
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":", 1)[1])
                for line in head.lower().split(b"\r\n")
                if line.startswith(b"content-length:")
            ),
            None,
        )
        if length is not None:
            payload = await reader.readexactly(length)
        else:  # chunked
            payload = b""
            while size := int((await reader.readuntil(b"\r\n")).strip(), 16):
                payload += (await reader.readexactly(size + 2))[:-2]
            await reader.readuntil(b"\r\n")
        latencies.append(time.perf_counter() - sent)
        if head.startswith(b"HTTP/1.1 200") and expect in payload:
            ok += 1
        else:
            bad += 1
    writer.close()
    return ok, bad


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time a process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(port: int, mode: str, session: str | None, seconds: float, pid: int) -> Rate:
    """Echo calls answered correctly over `seconds` (CONNECTIONS at a time): per wall second, per second
    of CPU time of the server process `pid`, and their latency."""
    requests = [request_bytes(port, mode, session, k) for k in range(CONNECTIONS)]
    latencies: list[float] = []

    async def run() -> list[tuple[int, int]]:
        until = time.perf_counter() + seconds
        return await asyncio.gather(*(_worker(port, r, e, until, latencies) for r, e in requests))

    cpu = cpu_seconds(pid)
    start = time.perf_counter()
    counts = asyncio.run(run())
    elapsed = time.perf_counter() - start
    cpu = cpu_seconds(pid) - cpu
    bad = sum(b for _, b in counts)
    if bad:
        raise SystemExit(f"{bad} wrong answers from the server on port {port}")
    done = sum(o for o, _ in counts)
    cuts = statistics.quantiles(latencies, n=100)
    return Rate(done / elapsed, done / max(cpu, 0.01), cuts[49] * 1000, cuts[98] * 1000)


def paired(ours: list[Rate], base: list[Rate], field: str) -> tuple[float, float, float]:
    """The median, lowest and highest of the ratios of `field` between `ours` and `base` round by round: a
    round's servers run one after the other, so a change of the machine's speed between rounds falls on
    both sides of a ratio alike."""
    ratios = [getattr(o, field) / getattr(b, field) for o, b in zip(ours, base)]
    return statistics.median(ratios), min(ratios), max(ratios)


def bench_http(
    package_dir: Path,
    reps: int,
    seconds: float,
    add: Callable[[str, str, str, float, str], None],
    http: str = "httptools",
    mode: str = "session",
) -> None:
    """Interleaved runs against the three servers; `add(what, ours, baseline, ratio, target)` records the
    median rates and the median of the ratios paired by round (`target` names what the ratio is held to:
    "http" for the SDK, "http-floor" for the bare app)."""
    kinds = ("sdk", "bare", "mcpgen")
    ports = {kind: _free_port() for kind in kinds}
    servers = {
        kind: _start(
            [sys.executable, str(HERE / "http_servers.py"), kind, mode, http, str(ports[kind])]
            + ([str(package_dir)] if kind == "mcpgen" else []),
            ports[kind],
        )
        for kind in kinds
    }
    rates: dict[str, list[Rate]] = {kind: [] for kind in kinds}
    try:
        sessions = {kind: open_session(port, MODES[mode]) if mode == "session" else None for kind, port in ports.items()}
        for kind in kinds:
            measure(ports[kind], mode, sessions[kind], min(seconds, 1.0), servers[kind].pid)  # warm up
        for rep in range(reps):
            for kind in kinds[rep % 3 :] + kinds[: rep % 3]:  # each server in turn first, middle and last
                rates[kind].append(measure(ports[kind], mode, sessions[kind], seconds, servers[kind].pid))
    finally:
        for server in servers.values():
            server.terminate()
            server.wait(30)
    med = {kind: Rate(*(statistics.median(getattr(r, f) for r in rates[kind]) for f in ("wall", "cpu", "p50", "p99"))) for kind in kinds}
    what = f"tools/call echo over HTTP {MODES[mode]} ({mode}), {http}"
    ours, sdk, bare = med["mcpgen"], med["sdk"], med["bare"]
    for field, unit, held in (("cpu", "req/CPU-s", True), ("wall", "req/s", False)):
        for kind, name, target in (("sdk", "MCPServer", "http"), ("bare", "bare ASGI", "http-floor")):
            ratio, low, high = paired(rates["mcpgen"], rates[kind], field)
            add(
                f"{what}, {unit}" + (", the floor" if kind == "bare" else ""),
                f"{getattr(ours, field) / 1000:.2f}k",
                f"{getattr(med[kind], field) / 1000:.2f}k {name} (rounds {low:.2f}-{high:.2f}x)",
                ratio,
                target if held else "",
            )
    for name, rate in (("MCPServer", sdk), ("bare ASGI", bare)):
        add(f"{what}, p50/p99 ms", f"{ours.p50:.2f}/{ours.p99:.2f}", f"{rate.p50:.2f}/{rate.p99:.2f} {name}", rate.p50 / ours.p50, "")


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(os.environ.get("MCPGEN_BENCH_PACKAGES", "."))
    for mode in MODES:
        bench_http(target, 3, 3.0, lambda what, ours, base, ratio, _: print(f"{what}: {ours} vs {base}: {ratio:.2f}x"), "httptools", mode)
