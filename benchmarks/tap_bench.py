"""Tap benchmark: what `mcpgen tap` costs a session. 300 sequential `tools/call` (an echo) between a
client and a server, timed from the client after `initialize`, direct and through the tap, interleaved;
the ratio (the median of each pair's) is the tap's overhead. Over stdio (the generated 2025-11-25 client and server, the fastest
peers this machine has, so the ratio is the worst case; and the official SDK's ClientSession and
MCPServer) and over Streamable HTTP (the SDK's client and MCPServer under uvicorn).

Usage: python tap_bench.py PACKAGE_DIR [REPS] [CALLS]; also the children it starts
(`python tap_bench.py client|server KIND ...`).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

from http_bench import _free_port, _start

HERE = Path(__file__).resolve().parent
CALLS = 300
TAP = [sys.executable, "-m", "mcpgen", "tap"]


def _generated_server(package_dir: str) -> None:
    sys.path.insert(0, package_dir)
    from mcp_2025_11_25 import Server, types
    from mcp_2025_11_25.stdio import serve_stdio

    class Echo(Server):
        async def on_list_tools(self, params: Any) -> types.ListToolsResult:
            return types.ListToolsResult.model_validate({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]})

        async def on_call_tool(self, params: types.CallToolRequestParams) -> types.CallToolResult:
            text = str((params.arguments or {}).get("text", ""))
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    asyncio.run(serve_stdio(Echo()))


def _sdk_server(port: str | None) -> None:
    from mcp.server import MCPServer

    server = MCPServer("bench")

    @server.tool()
    def echo(text: str) -> str:
        """Return the text."""
        return text

    if port is None:
        server.run()
        return
    import uvicorn

    uvicorn.run(server.streamable_http_app(json_response=False), host="127.0.0.1", port=int(port), log_level="warning")


async def _generated_client(package_dir: str, command: list[str], calls: int) -> float:
    sys.path.insert(0, package_dir)
    from mcp_2025_11_25 import Client
    from mcp_2025_11_25.stdio import connect_stdio

    client = Client()
    with open(os.devnull, "wb") as devnull:
        async with connect_stdio(client, command, stderr=devnull):
            await client.start_session()
            started = time.perf_counter()
            for i in range(calls):
                await client.call_tool({"name": "echo", "arguments": {"text": f"call {i}"}})
            return time.perf_counter() - started


async def _sdk_client(target: list[str] | str, calls: int) -> float:
    from mcp import ClientSession

    if isinstance(target, str):
        from mcp.client.streamable_http import streamable_http_client

        transport: Any = streamable_http_client(target)
    else:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        transport = stdio_client(StdioServerParameters(command=target[0], args=target[1:], env=dict(os.environ)), errlog=open(os.devnull, "w"))
    async with transport as (read, write, *_):
        async with ClientSession(read, write) as session:
            await session.initialize()
            started = time.perf_counter()
            for i in range(calls):
                await session.call_tool("echo", {"text": f"call {i}"})
            return time.perf_counter() - started


def _child(argv: list[str]) -> float:
    """Run a benchmark client in a process of its own; the seconds its calls took."""
    done = subprocess.run([sys.executable, str(Path(__file__)), *argv], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"tap benchmark client failed: {' '.join(argv)}\n{done.stderr[-3000:]}")
    return float(done.stdout.split()[-1])


def _ratio(tapped: list[float], direct: list[float]) -> float:
    """The median of the ratios of each tapped run to the direct run beside it (steadier than the ratio of
    medians when the machine's load drifts during the benchmark)."""
    return statistics.median(t / d for t, d in zip(tapped, direct))


def bench_tap(package_dir: Path, reps: int, calls: int, add: Callable[[str, str, str, float, str], None]) -> None:
    """Time `calls` sequential calls direct and through the tap, `reps` times each, interleaved; report medians."""
    me = str(Path(__file__))
    generated = [sys.executable, me, "server", "generated", str(package_dir)]
    sdk = [sys.executable, me, "server", "sdk"]
    pairs = {
        "generated client/server": (["client", "generated", str(package_dir), str(calls), "--"], generated),
        "SDK ClientSession/MCPServer": (["client", "sdk", str(calls), "--"], sdk),
    }
    for label, (client, server) in pairs.items():
        direct, tapped = [], []
        for _ in range(reps):
            direct.append(_child([*client, *server]))
            tapped.append(_child([*client, *TAP, "--", *server]))
        add(f"{calls} tools/call over stdio, {label}", f"{statistics.median(tapped):.2f} s tap", f"{statistics.median(direct):.2f} s direct", _ratio(tapped, direct), "stdio")
    upstream_port, tap_port = _free_port(), _free_port()
    server = _start([sys.executable, me, "server", "sdk", str(upstream_port)], upstream_port)
    tap = _start([*TAP, "--upstream", f"http://127.0.0.1:{upstream_port}/mcp", "--listen", f"127.0.0.1:{tap_port}"], tap_port)
    try:
        direct, tapped = [], []
        for _ in range(reps):
            direct.append(_child(["client", "sdk-http", str(calls), f"http://127.0.0.1:{upstream_port}/mcp"]))
            tapped.append(_child(["client", "sdk-http", str(calls), f"http://127.0.0.1:{tap_port}/mcp"]))
        add(f"{calls} tools/call over HTTP, SDK client/MCPServer", f"{statistics.median(tapped):.2f} s tap", f"{statistics.median(direct):.2f} s direct", _ratio(tapped, direct), "http")
    finally:
        for process in (tap, server):
            process.terminate()
            process.wait(30)


def main() -> None:
    """The benchmark on its own, or one of its children."""
    role = sys.argv[1]
    if role == "server":
        if sys.argv[2] == "generated":
            _generated_server(sys.argv[3])
        else:
            _sdk_server(sys.argv[3] if len(sys.argv) > 3 else None)
    elif role == "client":
        kind = sys.argv[2]
        if kind == "generated":
            seconds = asyncio.run(_generated_client(sys.argv[3], sys.argv[6:], int(sys.argv[4])))
        elif kind == "sdk":
            seconds = asyncio.run(_sdk_client(sys.argv[5:], int(sys.argv[3])))
        else:
            seconds = asyncio.run(_sdk_client(sys.argv[4], int(sys.argv[3])))
        print(f"{seconds:.6f}")
    else:
        reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
        calls = int(sys.argv[3]) if len(sys.argv) > 3 else CALLS
        bench_tap(Path(role), reps, calls, lambda what, ours, base, ratio, _: print(f"{what:<56} {ours:>12} {base:>14} {ratio:5.2f}x"))


if __name__ == "__main__":
    main()
