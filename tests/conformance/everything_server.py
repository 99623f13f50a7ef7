"""The conformance suite's "everything" server on a generated `Server`, served over Streamable HTTP by uvicorn.

Usage: `python everything_server.py PACKAGE PORT` with the generated package importable (PYTHONPATH).
Implements the tools, resources and prompts the `@modelcontextprotocol/conformance` server scenarios call.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
from typing import Any

import uvicorn

PACKAGE = sys.argv[1] if len(sys.argv) > 1 else "mcp_2025_11_25"
mcp = importlib.import_module(PACKAGE)
http = importlib.import_module(f"{PACKAGE}.http")
runtime = importlib.import_module(f"{PACKAGE}.runtime")
methods = importlib.import_module(f"{PACKAGE}.methods")
types = mcp.types
STATELESS = bool(runtime.STATELESS_VERSIONS)

IMAGE = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
AUDIO = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
EMPTY = {"type": "object", "properties": {}}
SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}
    },
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": False,
}
SEP1034_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {
            "type": "string",
            "description": "User status",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "description": "Verification status", "default": True},
    },
    "required": [],
}
SEP1330_SCHEMA = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "description": "Select one option", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "description": "Select one option with titles",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "description": "Select one option (legacy)",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "description": "Select multiple options",
            "minItems": 1,
            "maxItems": 3,
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "description": "Select multiple options with titles",
            "minItems": 1,
            "maxItems": 3,
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    },
    "required": [],
}


def tool(name: str, description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """A tool definition."""
    return {"name": name, "description": description, "inputSchema": schema or EMPTY}


TOOLS = [
    tool("test_simple_text", "Tests simple text content response"),
    tool("test_image_content", "Tests image content response"),
    tool("test_audio_content", "Tests audio content response"),
    tool("test_embedded_resource", "Tests embedded resource content response"),
    tool("test_multiple_content_types", "Tests response with multiple content types (text, image, resource)"),
    tool("test_tool_with_logging", "Tests tool that emits log messages during execution"),
    tool("test_tool_with_progress", "Tests tool that reports progress notifications"),
    tool("test_error_handling", "Tests error response handling"),
    tool("test_reconnection", "Closes the SSE stream mid-call; the result follows after the client reconnects"),
    tool(
        "test_sampling",
        "Tests server-initiated sampling (LLM completion request)",
        {"type": "object", "properties": {"prompt": {"type": "string"}}, "required": ["prompt"]},
    ),
    tool(
        "test_elicitation",
        "Tests server-initiated elicitation (user input request)",
        {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]},
    ),
    tool("test_elicitation_sep1034_defaults", "Tests elicitation with default values per SEP-1034"),
    tool("test_elicitation_sep1330_enums", "Tests elicitation with enum schema improvements per SEP-1330"),
    tool("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features (SEP-1613)", SCHEMA_2020_12),
]
RESOURCES = [
    {"uri": "test://static-text", "name": "static-text", "title": "Static Text Resource", "mimeType": "text/plain"},
    {"uri": "test://static-binary", "name": "static-binary", "title": "Static Binary Resource", "mimeType": "image/png"},
    {"uri": "test://watched-resource", "name": "watched-resource", "title": "Watched Resource", "mimeType": "text/plain"},
]
TEMPLATES = [
    {
        "uriTemplate": "test://template/{id}/data",
        "name": "template",
        "title": "Resource Template",
        "mimeType": "application/json",
    }
]
PROMPTS = [
    {"name": "test_simple_prompt", "title": "Simple Test Prompt", "description": "A simple prompt without arguments"},
    {
        "name": "test_prompt_with_arguments",
        "title": "Prompt With Arguments",
        "description": "A prompt with required arguments",
        "arguments": [
            {"name": "arg1", "description": "First test argument", "required": True},
            {"name": "arg2", "description": "Second test argument", "required": True},
        ],
    },
    {
        "name": "test_prompt_with_embedded_resource",
        "title": "Prompt With Embedded Resource",
        "description": "A prompt that includes an embedded resource",
        "arguments": [{"name": "resourceUri", "description": "URI of the resource to embed", "required": True}],
    },
    {"name": "test_prompt_with_image", "title": "Prompt With Image", "description": "A prompt that includes image content"},
]


def text(value: str) -> dict[str, Any]:
    """A text content block."""
    return {"type": "text", "text": value}


def wire(params: Any) -> dict[str, Any]:
    """The wire form of typed params."""
    return runtime.dump(params) or {}


class EverythingServer(mcp.Server):
    """Every feature the conformance scenarios exercise."""

    name = "mcpgen-conformance-server"
    version = "1.0.0"
    capabilities = types.ServerCapabilities.model_validate(
        {
            "tools": {"listChanged": True},
            "resources": {"listChanged": True} if STATELESS else {"subscribe": True, "listChanged": True},
            "prompts": {"listChanged": True},
            "logging": {},
            "completions": {},
        }
    )

    async def log(self, message: str) -> None:
        """Send an info log message to the client."""
        await self.notify_logging_message({"level": "info", "logger": "conformance", "data": message})

    async def on_list_tools(self, params: Any) -> Any:
        """Every test tool."""
        return types.ListToolsResult.model_validate(self.cacheable({"tools": TOOLS}))

    def cacheable(self, result: dict[str, Any]) -> dict[str, Any]:
        """A result with the caching hints the stateless revision asks for on list and read results."""
        if STATELESS:
            result.update({"resultType": "complete", "ttlMs": 0, "cacheScope": "public"})
        return result

    def complete(self, result: dict[str, Any]) -> dict[str, Any]:
        """A result marked complete where the revision has result types."""
        if STATELESS:
            result["resultType"] = "complete"
        return result

    async def on_call_tool(self, params: Any) -> Any:
        """Run one test tool."""
        call = wire(params)
        name = call["name"]
        arguments = call.get("arguments") or {}
        meta = call.get("_meta") or {}
        if name == "test_simple_text":
            content = [text("This is a simple text response for testing.")]
        elif name == "test_image_content":
            content = [{"type": "image", "data": IMAGE, "mimeType": "image/png"}]
        elif name == "test_audio_content":
            content = [{"type": "audio", "data": AUDIO, "mimeType": "audio/wav"}]
        elif name == "test_embedded_resource":
            resource = {"uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."}
            content = [{"type": "resource", "resource": resource}]
        elif name == "test_multiple_content_types":
            resource = {
                "uri": "test://mixed-content-resource",
                "mimeType": "application/json",
                "text": json.dumps({"test": "data", "value": 123}),
            }
            content = [
                text("Multiple content types test:"),
                {"type": "image", "data": IMAGE, "mimeType": "image/png"},
                {"type": "resource", "resource": resource},
            ]
        elif name == "test_tool_with_logging":
            for step in ("Tool execution started", "Tool processing data", "Tool execution completed"):
                await self.log(step)
                await asyncio.sleep(0.05)
            content = [text("Tool with logging executed successfully")]
        elif name == "test_tool_with_progress":
            token = meta.get("progressToken", 0)
            for step in (0, 50, 100):
                progress = {"progressToken": token, "progress": step, "total": 100, "message": f"Completed step {step} of 100"}
                await self.notify_progress(progress)
                await asyncio.sleep(0.05)
            content = [text(str(token))]
        elif name == "test_error_handling":
            return types.CallToolResult.model_validate(
                self.complete({"isError": True, "content": [text("This tool intentionally returns an error for testing")]})
            )
        elif name == "test_reconnection":
            http.close_sse_stream()
            await asyncio.sleep(0.1)
            content = [text("Reconnection test completed successfully.")]
        elif name == "test_sampling":
            result = wire(await self.create_message({"messages": [{"role": "user", "content": text(arguments.get("prompt", ""))}], "maxTokens": 100}))
            answer = result.get("content", {}).get("text", "No response") if isinstance(result.get("content"), dict) else "No response"
            content = [text(f"LLM response: {answer}")]
        elif name in ("test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums"):
            if name == "test_elicitation":
                schema = {"type": "object", "properties": {"response": {"type": "string", "description": "User's response"}}, "required": ["response"]}
                message = arguments.get("message", "")
            elif name == "test_elicitation_sep1034_defaults":
                schema, message = SEP1034_SCHEMA, "Please review and update the form fields with defaults"
            else:
                schema, message = SEP1330_SCHEMA, "Please select options from the enum fields"
            result = wire(await self.elicit({"mode": "form", "message": message, "requestedSchema": schema}))
            content = [text(f"User response: action={result.get('action')}, content={json.dumps(result.get('content') or {})}")]
        elif name == "json_schema_2020_12_tool":
            content = [text(f"JSON Schema 2020-12 tool called with: {json.dumps(arguments)}")]
        else:
            raise mcp.ProtocolError(methods.INVALID_PARAMS, f"Unknown tool: {name}")
        return types.CallToolResult.model_validate(self.complete({"content": content}))

    async def on_list_resources(self, params: Any) -> Any:
        """The static resources."""
        return types.ListResourcesResult.model_validate(self.cacheable({"resources": RESOURCES}))

    async def on_list_resource_templates(self, params: Any) -> Any:
        """The one resource template."""
        return types.ListResourceTemplatesResult.model_validate(self.cacheable({"resourceTemplates": TEMPLATES}))

    async def on_read_resource(self, params: Any) -> Any:
        """Read a static resource or the template's instance."""
        uri = wire(params)["uri"]
        if uri == "test://static-text":
            contents = [{"uri": uri, "mimeType": "text/plain", "text": "This is the content of the static text resource."}]
        elif uri == "test://static-binary":
            contents = [{"uri": uri, "mimeType": "image/png", "blob": IMAGE}]
        elif uri == "test://watched-resource":
            contents = [{"uri": uri, "mimeType": "text/plain", "text": "Watched resource content"}]
        elif uri.startswith("test://template/") and uri.endswith("/data"):
            item = uri[len("test://template/") : -len("/data")]
            body = {"id": item, "templateTest": True, "data": f"Data for ID: {item}"}
            contents = [{"uri": uri, "mimeType": "application/json", "text": json.dumps(body)}]
        else:
            raise mcp.ProtocolError(-32002, f"Resource not found: {uri}", {"uri": uri})
        return types.ReadResourceResult.model_validate(self.cacheable({"contents": contents}))

    async def on_subscribe(self, params: Any) -> Any:
        """Accept a subscription."""
        await self.log(f"Subscribed to resource: {wire(params)['uri']}")
        return types.EmptyResult.model_validate({})

    async def on_unsubscribe(self, params: Any) -> Any:
        """Accept an unsubscription."""
        await self.log(f"Unsubscribed from resource: {wire(params)['uri']}")
        return types.EmptyResult.model_validate({})

    async def on_list_prompts(self, params: Any) -> Any:
        """The test prompts."""
        return types.ListPromptsResult.model_validate(self.cacheable({"prompts": PROMPTS}))

    async def on_get_prompt(self, params: Any) -> Any:
        """Render one test prompt."""
        call = wire(params)
        name, arguments = call["name"], call.get("arguments") or {}
        if name == "test_simple_prompt":
            messages = [{"role": "user", "content": text("This is a simple prompt for testing.")}]
        elif name == "test_prompt_with_arguments":
            line = f"Prompt with arguments: arg1='{arguments.get('arg1')}', arg2='{arguments.get('arg2')}'"
            messages = [{"role": "user", "content": text(line)}]
        elif name == "test_prompt_with_embedded_resource":
            resource = {"uri": arguments.get("resourceUri", "test://example"), "mimeType": "text/plain", "text": "Embedded resource content for testing."}
            messages = [
                {"role": "user", "content": {"type": "resource", "resource": resource}},
                {"role": "user", "content": text("Please process the embedded resource above.")},
            ]
        elif name == "test_prompt_with_image":
            messages = [
                {"role": "user", "content": {"type": "image", "data": IMAGE, "mimeType": "image/png"}},
                {"role": "user", "content": text("Please analyze the image above.")},
            ]
        else:
            raise mcp.ProtocolError(methods.INVALID_PARAMS, f"Unknown prompt: {name}")
        return types.GetPromptResult.model_validate(self.complete({"messages": messages}))

    async def on_set_level(self, params: Any) -> Any:
        """Accept a log level."""
        await self.log(f"Log level set to: {wire(params)['level']}")
        return types.EmptyResult.model_validate({})

    async def on_complete(self, params: Any) -> Any:
        """No completions."""
        return types.CompleteResult.model_validate(self.complete({"completion": {"values": [], "total": 0, "hasMore": False}}))


def main() -> None:
    """Serve on 127.0.0.1:PORT until killed."""
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 3001
    app = http.streamable_http_app(EverythingServer)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
