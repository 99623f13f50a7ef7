"""A demo MCP server on the generated 2025-11-25 `Server`: prompts from the spec's Prompts page, a tool, a resource."""

from __future__ import annotations

import asyncio

from mcp_2025_11_25 import ProtocolError, Server, types
from mcp_2025_11_25.jsonrpc import INVALID_PARAMS
from mcp_2025_11_25.stdio import serve_stdio

PROMPTS = [
    types.Prompt(
        name="code_review",
        title="Request Code Review",
        description="Asks the LLM to analyze code quality and suggest improvements",
        arguments=[
            types.PromptArgument(name="code", description="The code to review", required=True)
        ],
    ),
    types.Prompt(
        name="code_review_ja",
        title="コードレビューを依頼",
        description="コードの品質を分析し、改善を提案します",
    ),
]
README = "mcpgen demo: typed MCP bindings generated from the official schema."


class DemoServer(Server):
    """Prompts, one tool and one resource."""

    name = "mcpgen-demo"
    version = "1.0.0"

    async def on_list_prompts(
        self, params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        """The demo prompts."""
        return types.ListPromptsResult(prompts=PROMPTS)

    async def on_get_prompt(self, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        """A code review request for the given code; -32602 for an unknown prompt."""
        if params.name not in {p.name for p in PROMPTS}:
            raise ProtocolError(
                INVALID_PARAMS, f"Unknown prompt: {params.name}", {"prompt": params.name}
            )
        code = (params.arguments or {}).get("code", "")
        text = (
            f"Please review this Python code:\n{code}"
            if params.name == "code_review"
            else f"このコードをレビューしてください:\n{code}"
        )
        message = types.PromptMessage(
            role="user", content=types.TextContent(type="text", text=text)
        )
        return types.GetPromptResult(description="Code review prompt", messages=[message])

    async def on_list_tools(
        self, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        """The `add` tool."""
        schema = {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        }
        return types.ListToolsResult(
            tools=[
                types.Tool.model_validate(
                    {"name": "add", "description": "Add two numbers", "inputSchema": schema}
                )
            ]
        )

    async def on_call_tool(self, params: types.CallToolRequestParams) -> types.CallToolResult:
        """Add a and b."""
        if params.name != "add":
            raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {params.name}")
        args = params.arguments or {}
        total = args["a"] + args["b"]
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=str(total))],
            structuredContent={"sum": total},
        )

    async def on_list_resources(
        self, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        """The README resource."""
        return types.ListResourcesResult(
            resources=[types.Resource(uri="demo://readme", name="readme", mimeType="text/plain")]
        )

    async def on_read_resource(
        self, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        """The README text."""
        if params.uri != "demo://readme":
            raise ProtocolError(-32002, "Resource not found", {"uri": params.uri})
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(uri=params.uri, mimeType="text/plain", text=README)
            ]
        )


if __name__ == "__main__":
    asyncio.run(serve_stdio(DemoServer()))
