"""`connect_http`: a generated Client against the generated Streamable HTTP app under uvicorn."""

from __future__ import annotations

import asyncio
import importlib
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from http_fixtures import Probe, tool_server
from httpserve import serve


def _modules(package: ModuleType) -> tuple[Any, Any]:
    return importlib.import_module(f"{package.__name__}.http"), importlib.import_module(f"{package.__name__}.runtime")


def _text(result: Any) -> str:
    text: str = result.content[0].text
    return text


def test_session_era_round_trips(packages: dict[str, ModuleType]) -> None:
    package = packages["2025-11-25"]
    http, runtime = _modules(package)
    probe = Probe()
    app = http.streamable_http_app(tool_server(package, probe), retry_ms=100)
    seen: list[Any] = []

    class Asking(package.Client):  # type: ignore[name-defined, misc]
        async def on_elicit(self, params: Any) -> Any:
            seen.append(("elicit", runtime.dump(params)["message"]))
            return package.types.ElicitResult.model_validate({"action": "accept", "content": {"answer": "yes"}})

        async def on_progress(self, params: Any) -> None:
            seen.append(("progress", runtime.dump(params)["progress"]))

        async def on_tool_list_changed(self, params: Any) -> None:
            seen.append(("tools changed", None))

    async def run(served: Any) -> dict[str, Any]:
        client = Asking()
        async with http.connect_http(client, served.url) as connection:
            init = await client.start_session()
            assert init.protocol_version == "2025-11-25" and connection.session_id in app.sessions
            tools = await client.list_tools()
            echo = await client.call_tool({"name": "echo", "arguments": {"k": "v"}})
            asked = await client.call_tool({"name": "ask", "arguments": {}})
            progress = await client.call_tool({"name": "progress", "arguments": {}, "_meta": {"progressToken": "t"}})
            polled = await client.call_tool({"name": "poll", "arguments": {"seconds": 0.05}})
            server = app.sessions[connection.session_id].server
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(server.notify_tool_list_changed(), served.loop))
            for _ in range(200):
                if ("tools changed", None) in seen:
                    break
                await asyncio.sleep(0.01)
            return {
                "tools": [t.name for t in tools.tools],
                "echo": _text(echo),
                "asked": json.loads(_text(asked)),
                "progress": _text(progress),
                "polled": _text(polled),
                "session": connection.session_id,
            }

    with serve(app) as served:
        answers = asyncio.run(run(served))
        assert answers["session"] not in app.sessions, "leaving connect_http ends the session (DELETE)"
    assert "echo" in answers["tools"]
    assert answers["echo"] == '{"k": "v"}'
    assert answers["asked"] == {"action": "accept", "content": {"answer": "yes"}}
    assert answers["progress"] == "done" and [s for s in seen if s[0] == "progress"] == [
        ("progress", p) for p in (1, 2, 3)
    ]
    assert answers["polled"] == "after the poll", "the answer arrives on the resumed stream"
    assert ("elicit", "Answer?") in seen and ("tools changed", None) in seen


def test_stateless_era_mirrors_headers(packages: dict[str, ModuleType]) -> None:
    package = packages["2026-07-28"]
    http, _ = _modules(package)
    app = http.streamable_http_app(tool_server(package, Probe()))

    async def run(url: str) -> tuple[str, str, int]:
        client = package.Client()
        async with http.connect_http(client, url) as connection:
            await client.start_session()
            arguments = {"region": "Zürich ", "count": 3}
            with pytest.raises(package.ProtocolError) as refused:
                await client.call_tool({"name": "headers", "arguments": arguments})
            await client.list_tools()
            called = await client.call_tool({"name": "headers", "arguments": arguments})
            named = await client.call_tool({"name": "echo", "arguments": {}})
            assert connection.session_id is None
            return _text(called), _text(named), refused.value.code

    with serve(app) as served:
        called, named, code = asyncio.run(run(served.url))
    assert code == -32020, "before tools/list the client cannot know the x-mcp-header arguments; the server refuses"
    assert json.loads(called) == {"count": 3, "region": "Zürich "}
    assert named == "{}"


def test_cancelling_a_call_tells_the_server(packages: dict[str, ModuleType]) -> None:
    package = packages["2025-11-25"]
    http, _ = _modules(package)
    probe = Probe()
    app = http.streamable_http_app(tool_server(package, probe))

    async def run(url: str) -> None:
        client = package.Client()
        async with http.connect_http(client, url):
            await client.start_session()
            call = asyncio.ensure_future(client.call_tool({"name": "slow", "arguments": {"tag": "x", "seconds": 30}}))
            while "x" not in probe.started:
                await asyncio.sleep(0.01)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            for _ in range(500):
                if probe.cancelled:
                    break
                await asyncio.sleep(0.01)

    with serve(app) as served:
        asyncio.run(run(served.url))
    assert probe.cancelled == ["x"] and probe.finished == []


def test_expired_session_is_reported(packages: dict[str, ModuleType]) -> None:
    package = packages["2025-11-25"]
    http, _ = _modules(package)
    app = http.streamable_http_app(tool_server(package, Probe()))

    async def run(url: str) -> None:
        client = package.Client()
        async with http.connect_http(client, url, listen=False) as connection:
            await client.start_session()
            await app.sessions.pop(connection.session_id).close()
            with pytest.raises(ConnectionError, match="404"):
                await client.list_tools()

    with serve(app) as served:
        asyncio.run(run(served.url))


def test_httpx_is_needed_only_by_connect_http(generated_root: Path) -> None:
    script = (
        "import sys, asyncio; sys.modules['httpx'] = None\n"
        "import mcp_2025_11_25, mcp_2025_11_25.http as http\n"
        "assert 'httpx' not in [m for m in sys.modules if sys.modules[m] is not None]\n"
        "async def main():\n"
        "    async with http.connect_http(mcp_2025_11_25.Client(), 'http://127.0.0.1:9/mcp'):\n"
        "        pass\n"
        "try:\n"
        "    asyncio.run(main())\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=generated_root, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "pip install httpx" in done.stdout


def test_an_idle_connection_is_not_reused_past_the_clients_keepalive(packages: dict[str, ModuleType]) -> None:
    package = packages["2025-11-25"]
    http, _ = _modules(package)
    expiry = importlib.import_module(f"{package.__name__}.runtime.http.client").KEEPALIVE_EXPIRY
    app = http.streamable_http_app(tool_server(package, Probe()))
    ports: list[int] = []

    async def recording(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            ports.append(scope["client"][1])
        await app(scope, receive, send)

    async def run(url: str) -> None:
        client = package.Client()
        async with http.connect_http(client, url, listen=False):
            await client.start_session()
            await client.list_tools()
            await asyncio.sleep(expiry + 0.5)
            await client.list_tools()

    with serve(recording) as served:
        asyncio.run(run(served.url))
    assert expiry < 2, "shorter than gunicorn's 2 s idle timeout, the shortest of the common servers"
    assert len(ports) == 4 and len(set(ports[:3])) == 1, "back-to-back requests share one connection"
    assert ports[3] != ports[0], (
        "after an idle gap longer than the client keeps a connection, the next request opens a new one"
        " instead of racing the server's close"
    )
