"""Two faults the official Python SDK found in the generated server, each against that SDK over real HTTP:
a notification sent through another request's `Server` onto a 2026-07-28 listen stream names that stream,
and a session's client capabilities reach the handlers only as far as the session's revision has them."""

from __future__ import annotations

import asyncio
import importlib
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from httpserve import serve
from shared import link_runtime

mcp = pytest.importorskip("mcp", reason="the official MCP Python SDK (`mcp`) is not installed")
from mcp import ClientSession, types  # noqa: E402
from mcp.client import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

STATELESS = ["mcp_2026_07_28", "mcp_2024_11_05_to_2026_07_28"]
MULTI = "mcp_2024_11_05_to_2026_07_28"
CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"


def _load(generated_root: Path, name: str) -> ModuleType:
    """The package, running on the runtime source as every test importing it does."""
    assert (generated_root / name).is_dir()
    link_runtime(name)
    return importlib.import_module(name)


def relay_server(package: ModuleType) -> type:
    """A server whose `announce` tool tells every open listen stream that the tool list changed, through
    the listen request's own `Server` (a stateless server is made per request)."""
    runtime = importlib.import_module(f"{package.__name__}.runtime")
    listening: list[Any] = []

    class Relay(package.Server):  # type: ignore[misc, name-defined]
        name = "relay"

        async def on_subscriptions_listen(self, params: Any) -> Any:
            wanted = runtime.dump(params).get("notifications") or {}
            honoured = {"toolsListChanged": True} if wanted.get("toolsListChanged") else {}
            await self.notify_subscriptions_acknowledged({"notifications": honoured})
            listening.append(self)
            try:
                await asyncio.Event().wait()
            finally:
                listening.remove(self)

        async def on_list_tools(self, params: Any) -> Any:
            tool = {"name": "announce", "inputSchema": {"type": "object"}}
            body = {"tools": [tool], "resultType": "complete", "ttlMs": 0, "cacheScope": "public"}
            return package.types.ListToolsResult.model_validate(body)

        async def on_call_tool(self, params: Any) -> Any:
            for server in list(listening):
                await server.notify_tool_list_changed()
            body = {"content": [{"type": "text", "text": f"told {len(listening)}"}], "resultType": "complete"}
            return package.types.CallToolResult.model_validate(body)

    return Relay


async def _listen_then_announce(url: str) -> tuple[str, Any]:
    async with Client(url, mode="auto") as client:
        async with client.listen(tools_list_changed=True) as subscription:
            called = await client.call_tool("announce", {})
            event = await asyncio.wait_for(anext(aiter(subscription)), 10)
            return called.content[0].text, event


@pytest.mark.parametrize("name", STATELESS)
def test_a_notification_sent_through_the_listen_requests_server_reaches_the_sdk_listener(
    generated_root: Path, name: str
) -> None:
    """The SDK's `Client.listen()` yields only notifications naming its stream in
    `_meta["io.modelcontextprotocol/subscriptionId"]`: the tools/call handler's announcement must carry it."""
    package = _load(generated_root, name)
    app = importlib.import_module(f"{name}.http").streamable_http_app(relay_server(package))
    with serve(app) as served:
        text, event = asyncio.run(asyncio.wait_for(_listen_then_announce(served.url), 30))
    assert text == "told 1"
    assert "tools" in repr(event).lower()


def capabilities_server(package: ModuleType) -> type:
    """A server whose `capabilities` tool answers with the client capabilities its handler is given."""
    runtime = importlib.import_module(f"{package.__name__}.runtime")

    class Echo(package.Server):  # type: ignore[misc, name-defined]
        name = "capabilities"

        async def on_list_tools(self, params: Any) -> Any:
            tool = {"name": "capabilities", "inputSchema": {"type": "object"}}
            body = {"tools": [tool], "resultType": "complete", "ttlMs": 0, "cacheScope": "public"}
            return package.types.ListToolsResult.model_validate(body)

        async def on_call_tool(self, params: Any) -> Any:
            seen = runtime.dump(params)["_meta"][CAPABILITIES_META]
            body = {"content": [{"type": "text", "text": json.dumps(seen)}], "resultType": "complete"}
            return package.types.CallToolResult.model_validate(body)

    return Echo


async def _session_capabilities(url: str, revision: str) -> tuple[str, dict[str, Any]]:
    """A handshake-era SDK session at `revision` declaring sampling with tools and context; what the
    server's handler saw of its capabilities."""
    sampling = types.SamplingCapability(tools=types.SamplingToolsCapability(), context=types.SamplingContextCapability())
    declared = types.ClientCapabilities(sampling=sampling, roots=types.RootsCapability(list_changed=True))
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            request = types.InitializeRequest(
                params=types.InitializeRequestParams(
                    protocol_version=revision,
                    capabilities=declared,
                    client_info=types.Implementation(name="sdk", version="2.3.0"),
                )
            )
            init = await session.send_request(request, types.InitializeResult)
            session.adopt(init)
            await session.send_notification(types.InitializedNotification())
            called = await session.call_tool("capabilities", {})
            return init.protocol_version, json.loads(called.content[0].text)


@pytest.mark.parametrize(
    ("revision", "sampling"),
    [("2024-11-05", {}), ("2025-03-26", {}), ("2025-06-18", {}), ("2025-11-25", {"tools": {}, "context": {}})],
)
def test_a_sessions_client_capabilities_reach_handlers_as_its_revision_has_them(
    generated_root: Path, revision: str, sampling: dict[str, Any]
) -> None:
    """`sampling.tools` and `sampling.context` came with 2025-11-25: an older session that sends them
    anyway (its `sampling` is an open object) does not make the 2026-07-28 handler believe it has them."""
    package = _load(generated_root, MULTI)
    app = importlib.import_module(f"{MULTI}.http").streamable_http_app(capabilities_server(package))
    with serve(app) as served:
        version, seen = asyncio.run(asyncio.wait_for(_session_capabilities(served.url, revision), 30))
    assert version == revision
    assert seen == {"sampling": sampling, "roots": {}}, seen  # 2026-07-28 roots have no listChanged
