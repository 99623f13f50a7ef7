"""Server.handle of one multi-revision package at each revision, against that revision's own package.

The same requests (tools/list, tools/call, prompts/get, resources/read in the revision's own shape)
go through `handle` of a server on the single-revision package and of a server on the package for
every revision (surface 2026-07-28), which validates them in the peer's revision, converts them to
the surface and the results back. The ratio is the cost of that conversion.
"""

from __future__ import annotations

import asyncio
import json
from types import ModuleType
from typing import Any, Callable

MULTI = "2024-11-05..2026-07-28"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"


def _fields(model: Any, values: dict[str, Any]) -> dict[str, Any]:
    """`values` without the keys the model has no field for (results differ a little between revisions)."""
    known = {field.alias or name for name, field in model.model_fields.items()}
    return {key: value for key, value in values.items() if key in known}


def results(types: Any) -> dict[str, Any]:
    """Typed results of the surface `types`, built once (the handlers only return them)."""
    extra = {"ttlMs": 1000, "cacheScope": "public"}
    text = {"type": "text", "text": "hello"}
    return {
        "tools/list": types.ListToolsResult(
            **_fields(types.ListToolsResult, {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}], **extra})
        ),
        "tools/call": types.CallToolResult(content=[text]),
        "prompts/get": types.GetPromptResult(
            **_fields(types.GetPromptResult, {"messages": [{"role": "user", "content": text}], **extra})
        ),
        "resources/read": types.ReadResourceResult(
            **_fields(types.ReadResourceResult, {"contents": [{"uri": "file:///a", "text": "a"}], **extra})
        ),
    }


def server(pkg: ModuleType) -> Any:
    """A server on `pkg`'s surface answering the four requests with prebuilt results."""
    answers = results(pkg.types)

    async def reply(self: Any, params: Any, method: str) -> Any:
        return answers[method]

    handlers = {
        "on_list_tools": lambda self, p: reply(self, p, "tools/list"),
        "on_call_tool": lambda self, p: reply(self, p, "tools/call"),
        "on_get_prompt": lambda self, p: reply(self, p, "prompts/get"),
        "on_read_resource": lambda self, p: reply(self, p, "resources/read"),
    }
    return type("Bench", (pkg.Server,), handlers)()


def requests(revision: str) -> list[bytes]:
    """The four requests as a client of `revision` sends them."""
    params: list[tuple[str, dict[str, Any]]] = [
        ("tools/list", {}),
        ("tools/call", {"name": "echo", "arguments": {"text": "hi"}}),
        ("prompts/get", {"name": "greet"}),
        ("resources/read", {"uri": "file:///a"}),
    ]
    out = []
    for i, (method, p) in enumerate(params):
        if revision >= "2026-07-28":
            p = {**p, "_meta": {META_VERSION: revision, META_CAPABILITIES: {}}}
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": i + 1, "method": method}
        if p:
            message["params"] = p
        out.append(json.dumps(message).encode())
    return out


def handler(pkg: ModuleType, revision: str) -> Callable[[bytes], Any]:
    """`handle` of a fresh server in a session of `revision` (initialized first where the revision has a handshake)."""
    loop = asyncio.new_event_loop()
    target = server(pkg)
    if revision < "2026-07-28":
        init = {"protocolVersion": revision, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}
        loop.run_until_complete(target.handle({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}))

    def handle(data: bytes) -> Any:
        reply = loop.run_until_complete(target.handle(data))
        if not reply or "error" in reply:
            raise RuntimeError(f"{pkg.__name__} {revision}: {reply}")
        return reply

    return handle
