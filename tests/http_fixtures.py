"""A small tool server on a generated `Server`, shared by the HTTP transport tests."""

from __future__ import annotations

import asyncio
import importlib
import json
from types import ModuleType
from typing import Any

from httpserve import ACCEPT

VERSION_HEADER = "mcp-protocol-version"


class Probe:
    """What the test server's handlers saw: started and cancelled calls, the most that ran at once."""

    def __init__(self) -> None:
        self.running = 0
        self.peak = 0
        self.started: list[str] = []
        self.cancelled: list[str] = []
        self.finished: list[str] = []


def tool_server(package: ModuleType, probe: Probe) -> type:
    """A Server class of `package` with the tools the tests call (echo, slow, progress, ask, poll, flood)."""
    mcp = package
    http = importlib.import_module(f"{package.__name__}.http")
    runtime = importlib.import_module(f"{package.__name__}.runtime")
    stateless = bool(importlib.import_module(f"{package.__name__}.revisions").MODERN_VERSIONS)

    def result(text: str) -> Any:
        body: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
        if stateless:
            body["resultType"] = "complete"
        return mcp.types.CallToolResult.model_validate(body)

    class ToolServer(mcp.Server):  # type: ignore[misc, name-defined]
        name = "http-test-server"

        async def on_list_tools(self, params: Any) -> Any:
            tools = [
                {"name": n, "inputSchema": {"type": "object"}}
                for n in ("echo", "slow", "progress", "ask", "poll", "flood")
            ]
            tools.append(
                {
                    "name": "headers",
                    "inputSchema": {
                        "type": "object",
                        "properties": {
                            "region": {"type": "string", "x-mcp-header": "Region"},
                            "count": {"type": "integer", "x-mcp-header": "Count"},
                        },
                    },
                }
            )
            body: dict[str, Any] = {"tools": tools}
            if stateless:
                body.update({"resultType": "complete", "ttlMs": 0, "cacheScope": "public"})
            return mcp.types.ListToolsResult.model_validate(body)

        async def on_call_tool(self, params: Any) -> Any:
            call = runtime.dump(params)
            name, args = call["name"], call.get("arguments") or {}
            meta = call.get("_meta") or {}
            if name in ("echo", "headers"):
                return result(json.dumps(args, sort_keys=True))
            if name == "slow":
                tag = str(args.get("tag"))
                probe.started.append(tag)
                probe.running += 1
                probe.peak = max(probe.peak, probe.running)
                try:
                    await asyncio.sleep(float(args.get("seconds", 0.05)))
                except asyncio.CancelledError:
                    probe.cancelled.append(tag)
                    raise
                finally:
                    probe.running -= 1
                probe.finished.append(tag)
                return result(tag)
            if name == "progress":
                for step in (1, 2, 3):
                    await self.notify_progress(
                        {"progressToken": meta.get("progressToken", 0), "progress": step, "total": 3}
                    )
                return result("done")
            if name == "ask":
                schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
                answer = runtime.dump(
                    await self.elicit({"mode": "form", "message": "Answer?", "requestedSchema": schema})
                )
                return result(json.dumps(answer, sort_keys=True))
            if name == "poll":
                await http.close_sse_stream()
                await asyncio.sleep(float(args.get("seconds", 0.2)))
                return result("after the poll")
            if name == "flood":
                tag = str(args.get("tag"))
                probe.started.append(tag)
                try:
                    for i in range(int(args.get("count", 10))):
                        await self.notify_logging_message({"level": "info", "data": "x" * 1000 + str(i)})
                        await asyncio.sleep(float(args.get("pause", 0)))
                except asyncio.CancelledError:
                    probe.cancelled.append(tag)
                    raise
                probe.finished.append(tag)
                return result("flooded")
            raise mcp.ProtocolError(-32602, f"unknown tool {name}")

    return ToolServer


def tool_app(packages: dict[str, ModuleType], revision: str, probe: Probe, **options: Any) -> Any:
    """The Streamable HTTP app of `revision`'s package serving the tool server."""
    package = packages[revision]
    http = importlib.import_module(f"{package.__name__}.http")
    return http.streamable_http_app(tool_server(package, probe), **options)


def post_headers(version: str | None = None, session: str | None = None, **extra: str) -> dict[str, str]:
    """Headers of a well-formed POST."""
    headers = {"content-type": "application/json", "accept": ACCEPT}
    if version is not None:
        headers[VERSION_HEADER] = version
    if session is not None:
        headers["mcp-session-id"] = session
    headers.update({k.replace("_", "-"): v for k, v in extra.items()})
    return headers


def initialize_message(version: str, request_id: int = 1) -> dict[str, Any]:
    """A client's initialize request for `version`."""
    params = {
        "protocolVersion": version,
        "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "t", "version": "1"},
    }
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}


def stateless_message(method: str, params: dict[str, Any], version: str, request_id: int = 1) -> dict[str, Any]:
    """A stateless-era request carrying the version, client info and capabilities in `_meta`."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**params, "_meta": meta}}


def call_message(name: str, arguments: dict[str, Any], request_id: int, **meta: Any) -> dict[str, Any]:
    """A session-era tools/call request."""
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if meta:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
