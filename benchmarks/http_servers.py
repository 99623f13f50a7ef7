"""The servers of the HTTP benchmark, each a `tools/call` echo under uvicorn on loopback.

Usage: python http_servers.py KIND MODE HTTP PORT [PACKAGE_DIR]

KIND is mcpgen (the generated package in PACKAGE_DIR), sdk (the official SDK's MCPServer) or bare (the
limit the others are read against: an ASGI app that answers the same bytes and does nothing else);
bare+N is the bare app running N turns of a pure-Python loop per request first (what the floor's ratio
charges for a known amount of in-process work: see docs/performance.md).
MODE is session (2025-11-25: `initialize`, then calls in a session) or stateless (2026-07-28: every
call on its own, a fresh server each time; the SDK's `stateless_http`). HTTP is uvicorn's HTTP
implementation: h11, or httptools, its default when installed.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import uvicorn

VERSIONS = {"session": "2025-11-25", "stateless": "2026-07-28"}


def mcpgen_app(package_dir: str, mode: str) -> Any:
    """The generated Server of the mode's revision with an echo tool, as the generated Streamable HTTP app."""
    sys.path.insert(0, package_dir)
    package = "mcp_" + VERSIONS[mode].replace("-", "_")
    Server = importlib.import_module(package).Server
    types = importlib.import_module(f"{package}.types")
    streamable_http_app = importlib.import_module(f"{package}.http").streamable_http_app
    listing: dict[str, Any] = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
    if (
        mode == "stateless"
    ):  # a fixed tool list may be kept: the x-mcp-header check reads it once a minute
        listing.update(cacheScope="private", ttlMs=60_000, resultType="complete")

    class Echo(Server):  # type: ignore[misc, valid-type]
        async def on_list_tools(self, params: Any) -> Any:
            return types.ListToolsResult.model_validate(listing)

        async def on_call_tool(self, params: Any) -> Any:
            text = str((params.arguments or {}).get("text", ""))
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    return streamable_http_app(Echo)


def sdk_app(mode: str) -> Any:
    """The official SDK's MCPServer with the same tool, as its Streamable HTTP app (JSON answers; sessions,
    or none in stateless mode)."""
    from mcp.server import MCPServer

    server = MCPServer("bench")

    @server.tool()
    def echo(text: str) -> str:
        """Return the text."""
        return text

    return server.streamable_http_app(json_response=True, stateless_http=mode == "stateless")


def bare_app(mode: str) -> Any:
    """An ASGI app answering the echo call with the bytes the generated server sends, and nothing more:
    no validation, no dispatch, no session bookkeeping beyond handing out an id."""
    import json

    session = [(b"mcp-session-id", b"bare-session")] if mode == "session" else []
    result_type = ',"resultType":"complete"' if mode == "stateless" else ""
    initialized = json.dumps(
        {
            "protocolVersion": VERSIONS[mode],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "bare", "version": "0"},
        },
        separators=(",", ":"),
    )

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        request = json.loads(body) if body else {}
        if "id" not in request:
            await send({"type": "http.response.start", "status": 202, "headers": session})
            await send({"type": "http.response.body", "body": b""})
            return
        if request.get("method") == "initialize":
            result = initialized
        else:
            text = json.dumps(request["params"]["arguments"].get("text", ""), ensure_ascii=False)
            result = '{"content":[{"type":"text","text":%s}]%s}' % (text, result_type)
        answer = (
            '{"jsonrpc":"2.0","id":%s,"result":%s}' % (json.dumps(request["id"]), result)
        ).encode()
        headers = [
            *session,
            (b"content-type", b"application/json"),
            (b"content-length", str(len(answer)).encode()),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": answer})

    return app


def worked_app(app: Any, work: int) -> Any:
    """`app` running `work` turns of a pure-Python loop before each HTTP request (the floor's own app is
    left as it is)."""

    async def worked(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            turns = 0
            for turn in range(work):
                turns += turn
        await app(scope, receive, send)

    return worked


def main() -> None:
    """Serve the chosen app until killed."""
    kind, mode, http, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    if kind == "mcpgen":
        app = mcpgen_app(sys.argv[5], mode)
    elif kind == "bare":
        app = bare_app(mode)
    elif kind.startswith("bare+"):
        app = worked_app(bare_app(mode), int(kind.removeprefix("bare+")))
    else:
        app = sdk_app(mode)
    uvicorn.run(app, host="127.0.0.1", port=port, http=http, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
