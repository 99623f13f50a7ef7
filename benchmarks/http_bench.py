"""HTTP benchmark: requests/s of a `tools/call` echo over Streamable HTTP on loopback, the generated app
against the official SDK's `MCPServer` (mcp 2.3.0), both under uvicorn, one load generator for both.

The load generator keeps `CONNECTIONS` keep-alive connections busy with one request in flight each,
using prebuilt request bytes (so its own cost is small and the same for both), and counts only answers
that are 200 and carry the echoed text. Two rates: per wall second (what a client sees on this machine,
shared with the load generator and whatever else runs) and per second of the server process's own CPU
time (what one saturated core serves: steadier under other load, and not capped by the load generator).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
CONNECTIONS = 8
VERSION = "2025-11-25"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _start(argv: list[str], port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
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


def _post(port: int, message: dict[str, Any], session: str | None) -> tuple[dict[str, str], bytes]:
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": VERSION,
    }
    if session:
        headers["mcp-session-id"] = session
    connection.request("POST", "/mcp", json.dumps(message), headers)
    response = connection.getresponse()
    body = response.read()
    found = {k.lower(): v for k, v in response.getheaders()}
    connection.close()
    return found, body


def open_session(port: int) -> str:
    """Initialize a session on the server at `port`; its Mcp-Session-Id."""
    params = {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}
    headers, _ = _post(port, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}, None)
    session = headers["mcp-session-id"]
    _post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    return session


async def _worker(port: int, session: str, k: int, until: float) -> tuple[int, int]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    text = f"hello {k}"
    body = json.dumps(
        {"jsonrpc": "2.0", "id": k + 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": text}}}
    ).encode()
    request = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nMcp-Session-Id: {session}\r\n"
        f"MCP-Protocol-Version: {VERSION}\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    expect = json.dumps(text).encode()
    ok = bad = 0
    while time.perf_counter() < until:
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


def requests_per_second(port: int, session: str, seconds: float, pid: int) -> tuple[float, float]:
    """Echo calls answered correctly per wall second over `seconds` (CONNECTIONS at a time), and per second
    of CPU time of the server process `pid`: the rate one saturated core sustains, steadier under other load."""

    async def run() -> list[tuple[int, int]]:
        until = time.perf_counter() + seconds
        return await asyncio.gather(*(_worker(port, session, k, until) for k in range(CONNECTIONS)))

    cpu = cpu_seconds(pid)
    start = time.perf_counter()
    counts = asyncio.run(run())
    elapsed = time.perf_counter() - start
    cpu = cpu_seconds(pid) - cpu
    bad = sum(b for _, b in counts)
    if bad:
        raise SystemExit(f"{bad} wrong answers from the server on port {port}")
    done = sum(o for o, _ in counts)
    return done / elapsed, done / max(cpu, 0.01)


def bench_http(
    package_dir: Path, reps: int, seconds: float, add: Callable[[str, str, str, float], None], http: str = "httptools"
) -> None:
    """Interleaved runs against both servers; `add(what, ours, baseline, ratio)` records the medians."""
    import statistics

    ports = {"mcpgen": _free_port(), "sdk": _free_port(), "bare": _free_port()}
    servers = {
        "mcpgen": _start(
            [sys.executable, str(HERE / "http_servers.py"), "mcpgen", http, str(ports["mcpgen"]), str(package_dir)],
            ports["mcpgen"],
        ),
        **{
            kind: _start([sys.executable, str(HERE / "http_servers.py"), kind, http, str(ports[kind])], ports[kind])
            for kind in ("sdk", "bare")
        },
    }
    rates: dict[str, list[tuple[float, float]]] = {name: [] for name in ports}
    try:
        sessions = {name: open_session(port) for name, port in ports.items()}
        for name in ports:
            requests_per_second(ports[name], sessions[name], min(seconds, 1.0), servers[name].pid)  # warm up
        for _ in range(reps):
            for name in ("sdk", "bare", "mcpgen"):
                rates[name].append(requests_per_second(ports[name], sessions[name], seconds, servers[name].pid))
    finally:
        for server in servers.values():
            server.terminate()
            server.wait(30)
    for column, unit in ((0, "req/s"), (1, "req/CPU-s")):
        ours = statistics.median(r[column] for r in rates["mcpgen"])
        base = statistics.median(r[column] for r in rates["sdk"])
        bare = statistics.median(r[column] for r in rates["bare"])
        what = f"tools/call echo over HTTP {VERSION}, {http}, {unit}"
        add(what, f"{ours / 1000:.2f}k", f"{base / 1000:.2f}k MCPServer", ours / base)
        add(f"{what}, the limit", f"{ours / 1000:.2f}k", f"{bare / 1000:.2f}k bare ASGI", ours / bare)


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(os.environ.get("MCPGEN_BENCH_PACKAGES", "."))
    bench_http(target, 3, 3.0, lambda what, ours, base, ratio: print(f"{what}: {ours} vs {base}: {ratio:.2f}x"))
