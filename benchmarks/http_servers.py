"""The two servers of the HTTP benchmark, each a `tools/call` echo under uvicorn on loopback.

Usage: python http_servers.py mcpgen HTTP PORT PACKAGE_DIR | python http_servers.py sdk HTTP PORT
(HTTP is uvicorn's HTTP implementation: h11, or httptools, its default when installed).
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


def main() -> None:
    """Serve the chosen app until killed."""
    kind, http, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    app = mcpgen_app(sys.argv[4]) if kind == "mcpgen" else sdk_app()
    uvicorn.run(app, host="127.0.0.1", port=port, http=http, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
