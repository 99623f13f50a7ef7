"""`mcpgen tap --upstream URL --listen HOST:PORT` between real peers over Streamable HTTP: the official
SDK's client and MCPServer (under uvicorn), a generated client and server of the session era and of the
stateless era, and clients that break the transport's rules."""

from __future__ import annotations

import asyncio
import importlib
import json
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from http_fixtures import Probe, tool_server
from httpserve import ACCEPT, serve
from tap_support import SDK_SERVER, free_port, tap_http, validate, wait_for_port, write_script

mcp = pytest.importorskip("mcp", reason="the official MCP Python SDK (`mcp`) is not installed")
from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402


@pytest.fixture(scope="module")
def sdk_server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The SDK's MCPServer under uvicorn in a process of its own; its URL."""
    script = write_script(tmp_path_factory.mktemp("sdk"), "server.py", SDK_SERVER)
    port = free_port()
    process = subprocess.Popen([sys.executable, str(script), "http", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process, "the SDK server")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(30)


async def _sdk_session(url: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    progress: list[tuple[float, float]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, time.monotonic()))

    async with streamable_http_client(url) as (read, write, *_):
        async with ClientSession(read, write) as session:
            out["init"] = (await session.initialize()).model_dump(mode="json")
            out["tools"] = (await session.list_tools()).model_dump(mode="json")
            out["echo"] = [(await session.call_tool("echo", {"text": f"héllo {i}"})).model_dump(mode="json") for i in range(10)]
            out["slow"] = (await session.call_tool("slow", {"steps": 2}, progress_callback=on_progress)).model_dump(mode="json")
            answered = time.monotonic()
            out["progress"] = [done for done, _ in progress]
            out["first progress ahead"] = answered - progress[0][1] >= 0.5 if progress else False
    return out


def test_the_sdk_session_through_the_tap_is_the_direct_one(sdk_server: str, tmp_path: Path) -> None:
    direct = asyncio.run(asyncio.wait_for(_sdk_session(sdk_server), 60))
    capture = tmp_path / "http.jsonl"
    with tap_http(sdk_server, "--log", str(capture)) as tap:
        tapped = asyncio.run(asyncio.wait_for(_sdk_session(tap.url), 60))
    assert tapped == direct
    # SSE events are relayed as they arrive: the first progress came before the tool's last 0.6 s of work
    assert tapped["progress"] == [1, 2] and tapped["first progress ahead"]
    said = tap.said()
    assert said.violations == [] and said.notes == [], said.text
    assert said.summary[0] == "mcpgen tap: summary: 2025-11-25; 29 messages, 0 violations"
    assert tap.status == 130
    checked = validate(capture)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    records = [json.loads(line) for line in capture.read_text().splitlines()]
    assert {r["session"] for r in records} == {"1"}


def _modules(package: ModuleType) -> tuple[Any, Any]:
    return importlib.import_module(f"{package.__name__}.http"), importlib.import_module(f"{package.__name__}.runtime")


def test_a_generated_client_and_server_through_the_tap(packages: dict[str, ModuleType], tmp_path: Path) -> None:
    """Elicitation over the answer's stream, progress, a stream the server closes (the client resumes it
    with Last-Event-ID), a notification on the GET stream, and DELETE at the end."""
    package = packages["2025-11-25"]
    http, runtime = _modules(package)
    app = http.streamable_http_app(tool_server(package, Probe()), retry_ms=100)
    seen: list[Any] = []

    class Asking(package.Client):  # type: ignore[name-defined, misc]
        async def on_elicit(self, params: Any) -> Any:
            return package.types.ElicitResult.model_validate({"action": "accept", "content": {"answer": "yes"}})

        async def on_progress(self, params: Any) -> None:
            seen.append(runtime.dump(params)["progress"])

    async def run(url: str) -> list[str]:
        client = Asking()
        async with http.connect_http(client, url):
            await client.start_session()
            await client.list_tools()
            out = [(await client.call_tool({"name": "echo", "arguments": {"k": "v"}})).content[0].text]
            out.append((await client.call_tool({"name": "ask", "arguments": {}})).content[0].text)
            out.append((await client.call_tool({"name": "progress", "arguments": {}, "_meta": {"progressToken": "t"}})).content[0].text)
            out.append((await client.call_tool({"name": "poll", "arguments": {"seconds": 0.2}})).content[0].text)
            return out

    capture = tmp_path / "generated.jsonl"
    with serve(app) as served:
        direct = asyncio.run(run(served.url))
        with tap_http(served.url, "--log", str(capture)) as tap:
            tapped = asyncio.run(run(tap.url))
    assert tapped == direct == ['{"k": "v"}', '{"action": "accept", "content": {"answer": "yes"}}', "done", "after the poll"]
    assert seen == [1, 2, 3, 1, 2, 3]
    said = tap.said()
    assert said.violations == [] and said.notes == [], said.text
    assert "mcpgen tap:   c2s: elicitation/create response 1, initialize 1, notifications/initialized 1, tools/call 4, tools/list 1" in said.summary
    assert validate(capture).returncode == 0


def test_a_stateless_client_and_server_through_the_tap(packages: dict[str, ModuleType], tmp_path: Path) -> None:
    """2026-07-28: no session; every request mirrors its version, method and target in headers."""
    package = packages["2026-07-28"]
    http, runtime = _modules(package)
    app = http.streamable_http_app(tool_server(package, Probe()))

    async def run(url: str) -> list[str]:
        client = package.Client()
        async with http.connect_http(client, url):
            await client.start_session()
            await client.list_tools()
            called = await client.call_tool({"name": "headers", "arguments": {"region": "Zürich ", "count": 3}})
            return [called.content[0].text]

    capture = tmp_path / "stateless.jsonl"
    with serve(app) as served:
        with tap_http(served.url, "--log", str(capture)) as tap:
            tapped = asyncio.run(run(tap.url))
    assert json.loads(tapped[0]) == {"count": 3, "region": "Zürich "}
    said = tap.said()
    assert said.violations == [] and said.notes == [], said.text
    assert said.summary[0].startswith("mcpgen tap: summary: 2026-07-28; ")
    checked = validate(capture)
    assert checked.returncode == 0 and "validating against 2026-07-28, the version the server/discover request" in checked.stderr


def test_the_sdk_client_falling_back_from_server_discover_is_judged_per_revision(packages: dict[str, ModuleType], tmp_path: Path) -> None:
    """The SDK client in auto mode asks a 2025-11-25 server `server/discover` (2026-07-28) first, is told
    the method does not exist, and initializes a 2025-11-25 session: two revisions in one conversation."""
    from mcp.client import Client

    package = packages["2025-11-25"]
    http, _ = _modules(package)
    app = http.streamable_http_app(tool_server(package, Probe()))

    async def run(url: str) -> str:
        async with Client(url, mode="auto") as client:
            called = await client.call_tool("echo", {"k": 1})
            return f"{client.protocol_version} {called.content[0].text}"

    capture = tmp_path / "fallback.jsonl"
    with serve(app) as served:
        with tap_http(served.url, "--log", str(capture)) as tap:
            got = asyncio.run(asyncio.wait_for(run(tap.url), 60))
    assert got == '2025-11-25 {"k": 1}'
    said = tap.said()
    assert said.violations == [], said.text
    assert said.summary[0].startswith("mcpgen tap: summary: 2026-07-28, 2025-11-25; ")
    checked = validate(capture)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "validating against 2026-07-28" in checked.stderr and "validating against 2025-11-25" in checked.stderr


def test_transport_rules_are_judged(packages: dict[str, ModuleType]) -> None:
    package = packages["2025-11-25"]
    http, _ = _modules(package)
    app = http.streamable_http_app(tool_server(package, Probe()))
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
    with serve(app) as served:
        with tap_http(served.url) as tap:
            with httpx.Client(timeout=30) as client:
                post = {"content-type": "application/json", "accept": ACCEPT}
                opened = client.post(tap.url, json=initialize, headers=post)
                session = opened.headers["mcp-session-id"]
                ready = {**post, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
                assert client.post(tap.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=ready).status_code == 202
                listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
                assert client.post(tap.url, json=listing, headers={**post, "mcp-session-id": session}).status_code == 200
                assert client.post(tap.url, content=json.dumps(listing), headers={**ready, "content-type": "text/plain"}).status_code == 415
                assert client.post(tap.url, json=listing, headers={**ready, "accept": "application/json"}).status_code == 406
                assert client.post(tap.url, json=listing, headers=post).status_code == 400
    said = tap.said()
    rest = [(v["dir"], v["rest"]) for v in said.violations]
    assert rest == [
        ("c2s", "no MCP-Protocol-Version header: 2025-11-25 sends the negotiated version on every request after initialize"),
        ("c2s", "Content-Type 'text/plain': a POST carries application/json"),
        ("c2s", "Accept 'application/json': a POST lists application/json and text/event-stream"),
        ("c2s", "no Mcp-Session-Id header: the server gave the session an id at initialize"),
    ]
    assert "mcpgen tap:   violations: transport 4" in said.summary
