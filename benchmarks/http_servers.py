"""The servers of the HTTP benchmark, each a `tools/call` echo under uvicorn on loopback.

Usage: python http_servers.py mcpgen HTTP PORT PACKAGE_DIR | python http_servers.py sdk|bare HTTP PORT
(HTTP is uvicorn's HTTP implementation: h11, or httptools, its default when installed). `bare` is the
limit the others are read against: an ASGI app that answers the same bytes and does nothing else.
"""

from __future__ import annotations

import sys
from typing import Any

import uvicorn


def mcpgen_app(package_dir: str) -> Any:
    """The generated 2025-11-25 Server with an echo tool, as the generated Streamable HTTP app."""
    sys.path.insert(0, package_dir)
    from mcp_2025_11_25 import Server, types
    from mcp_2025_11_25.http import streamable_http_app

    class Echo(Server):
        async def on_list_tools(self, params: Any) -> types.ListToolsResult:
            return types.ListToolsResult.model_validate(
                {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
            )

        async def on_call_tool(self, params: types.CallToolRequestParams) -> types.CallToolResult:
            text = str((params.arguments or {}).get("text", ""))
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    return streamable_http_app(Echo)


def sdk_app() -> Any:
    """The official SDK's MCPServer with the same tool, as its Streamable HTTP app (JSON answers, sessions)."""
    from mcp.server import MCPServer

    server = MCPServer("bench")

    @server.tool()
    def echo(text: str) -> str:
        """Return the text."""
        return text

    return server.streamable_http_app(json_response=True)


def bare_app() -> Any:
    """An ASGI app answering the echo call with the bytes the generated server sends, and nothing more:
    no validation, no dispatch, no session bookkeeping beyond handing out an id."""
    import json

    session = [(b"mcp-session-id", b"bare-session")]
    initialized = json.dumps(
        {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "bare", "version": "0"}},
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
            result = '{"content":[{"type":"text","text":%s}]}' % text
        answer = ('{"jsonrpc":"2.0","id":%s,"result":%s}' % (json.dumps(request["id"]), result)).encode()
        headers = [*session, (b"content-type", b"application/json"), (b"content-length", str(len(answer)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": answer})

    return app


def main() -> None:
    """Serve the chosen app until killed."""
    kind, http, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    app = mcpgen_app(sys.argv[4]) if kind == "mcpgen" else bare_app() if kind == "bare" else sdk_app()
    uvicorn.run(app, host="127.0.0.1", port=port, http=http, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
