"""The conformance suite's "everything" server on a generated `Server`, served over Streamable HTTP by uvicorn.

Usage: `python everything_server.py PACKAGE PORT` with the generated package importable (PYTHONPATH).
Implements the tools, resources and prompts the `@modelcontextprotocol/conformance` server scenarios call.

PACKAGE is a single-revision package or a multi-revision one. Handlers are written once against the package's
surface types; what depends on the era of a request reads `self.protocol_version`. On a 2026-07-28 surface
serving a session (2025-11-25), the runtime converts results, sends the input requests of an
InputRequiredResult to the client as requests, answers `logging/setLevel` and serves `resources/subscribe`
with `on_subscriptions_listen`; `on_subscribe`, `on_unsubscribe` and `on_set_level` serve session surfaces.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import importlib
import json
import pathlib
import secrets
import sys
from typing import Any

import uvicorn

PACKAGE = sys.argv[1] if len(sys.argv) > 1 else "mcp_2025_11_25"
mcp = importlib.import_module(PACKAGE)
http = importlib.import_module(f"{PACKAGE}.http")
runtime = importlib.import_module(f"{PACKAGE}.runtime")
revisions = importlib.import_module(f"{PACKAGE}.revisions")
INVALID_PARAMS = importlib.import_module(f"{PACKAGE}.jsonrpc").INVALID_PARAMS
types = mcp.types
MODERN_SURFACE = revisions.SURFACE.modern is not None
"""Handlers take and return types of the stateless era (result types, caching hints, input requests instead of
server-to-client requests), whichever era each client speaks: the runtime converts for a legacy session."""

IMAGE = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
AUDIO = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
EMPTY = {"type": "object", "properties": {}}
SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}
HEADER_SCHEMA = {
    "type": "object",
    "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "priority": {"type": "integer", "x-mcp-header": "Priority"},
        "query": {"type": "string"},
    },
}
STATE_KEY = secrets.token_bytes(32)
LISTENERS: list[tuple[asyncio.Queue[str], dict[str, Any]]] = []
"""Open subscriptions/listen streams (stateless era): a queue of change kinds and the filter each honours."""
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
        "untitledSingle": {
            "type": "string",
            "description": "Select one option",
            "enum": ["option1", "option2", "option3"],
        },
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
STATELESS_TOOLS = [
    tool("test_input_required_result_elicitation", "Asks for a name (elicitation input request)"),
    tool("test_input_required_result_sampling", "Asks a question (sampling input request)"),
    tool("test_input_required_result_list_roots", "Asks for the roots (roots/list input request)"),
    tool("test_input_required_result_request_state", "Round-trips a signed requestState"),
    tool("test_input_required_result_multiple_inputs", "Asks for three inputs at once"),
    tool("test_input_required_result_multi_round", "Asks twice, with evolving requestState"),
    tool("test_input_required_result_tampered_state", "Rejects a tampered requestState"),
    tool("test_input_required_result_capabilities", "Asks only for what the client declared"),
    tool("test_missing_capability", "Needs the sampling client capability"),
    tool("test_streaming_elicitation", "Answers with an input request"),
    tool("test_logging_tool", "Logs only when the request sets a log level"),
    tool("test_trigger_tool_change", "Changes the tool list"),
    tool("test_trigger_prompt_change", "Changes the prompt list"),
    tool("test_custom_headers", "Mirrors region and priority into Mcp-Param headers", HEADER_SCHEMA),
]
ASK_NAME = {
    "method": "elicitation/create",
    "params": {
        "message": "What is your name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    },
}
ASK_CAPITAL = {
    "method": "sampling/createMessage",
    "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}],
        "maxTokens": 100,
    },
}
ASK_ROOTS: dict[str, Any] = {"method": "roots/list", "params": {}}
ANSWER = "client_answer"
"""The input request key of the legacy sampling and elicitation tools on a stateless surface."""


def ask(message: str, field: str, kind: str = "string") -> dict[str, Any]:
    """An elicitation input request for one field."""
    schema = {"type": "object", "properties": {field: {"type": kind}}, "required": [field]}
    return {"method": "elicitation/create", "params": {"message": message, "requestedSchema": schema}}


def sign(payload: str) -> str:
    """An integrity-protected requestState carrying `payload`."""
    body = base64.urlsafe_b64encode(payload.encode()).decode()
    return body + "." + hmac.new(STATE_KEY, body.encode(), hashlib.sha256).hexdigest()


def verify(state: Any) -> str | None:
    """The payload of a requestState this server signed; None when it was tampered with."""
    if not isinstance(state, str) or "." not in state:
        return None
    body, _, mac = state.rpartition(".")
    if not hmac.compare_digest(mac, hmac.new(STATE_KEY, body.encode(), hashlib.sha256).hexdigest()):
        return None
    return base64.urlsafe_b64decode(body.encode()).decode()


RESOURCES = [
    {"uri": "test://static-text", "name": "static-text", "title": "Static Text Resource", "mimeType": "text/plain"},
    {
        "uri": "test://static-binary",
        "name": "static-binary",
        "title": "Static Binary Resource",
        "mimeType": "image/png",
    },
    {
        "uri": "test://watched-resource",
        "name": "watched-resource",
        "title": "Watched Resource",
        "mimeType": "text/plain",
    },
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
    {
        "name": "test_prompt_with_image",
        "title": "Prompt With Image",
        "description": "A prompt that includes image content",
    },
]


def text(value: str) -> dict[str, Any]:
    """A text content block."""
    return {"type": "text", "text": value}


def needs(requests: dict[str, Any], state: str | None = None) -> Any:
    """An InputRequiredResult asking the client for `requests` (stateless era)."""
    result: dict[str, Any] = {"resultType": "input_required", "inputRequests": requests}
    if state is not None:
        result["requestState"] = state
    return types.InputRequiredResult.model_validate(result)


def done(message: str) -> Any:
    """A complete tool result with one text block."""
    return types.CallToolResult.model_validate({"resultType": "complete", "content": [text(message)]})


def wire(params: Any) -> dict[str, Any]:
    """The wire form of typed params."""
    return runtime.dump(params) or {}


class EverythingServer(mcp.Server):
    """Every feature the conformance scenarios exercise."""

    name = "mcpgen-conformance-server"
    version = "1.0.0"

    @property
    def stateless(self) -> bool:
        """Whether the request being handled is of the stateless era (else it belongs to a session)."""
        return self.protocol_version in revisions.MODERN_VERSIONS

    def derived_capabilities(self) -> Any:
        """Every feature; resource subscriptions in sessions (the stateless era listens instead)."""
        resources = {"listChanged": True} if self.stateless else {"subscribe": True, "listChanged": True}
        return types.ServerCapabilities.model_validate(
            {
                "tools": {"listChanged": True},
                "resources": resources,
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
        return types.ListToolsResult.model_validate(
            self.cacheable({"tools": TOOLS + (STATELESS_TOOLS if self.stateless else [])})
        )

    def cacheable(self, result: dict[str, Any]) -> dict[str, Any]:
        """A result with the caching hints the stateless revision asks for on list and read results (the runtime
        leaves them out for a session's revision)."""
        if MODERN_SURFACE:
            result.update({"resultType": "complete", "ttlMs": 0, "cacheScope": "public"})
        return result

    def complete(self, result: dict[str, Any]) -> dict[str, Any]:
        """A result marked complete where the surface revision has result types."""
        if MODERN_SURFACE:
            result["resultType"] = "complete"
        return result

    async def on_call_tool(self, params: Any) -> Any:
        """Run one test tool."""
        call = wire(params)
        name = call["name"]
        arguments = call.get("arguments") or {}
        meta = call.get("_meta") or {}
        if self.stateless and name in {t["name"] for t in STATELESS_TOOLS}:
            return await self.stateless_tool(name, call)
        if name == "test_simple_text":
            content = [text("This is a simple text response for testing.")]
        elif name == "test_image_content":
            content = [{"type": "image", "data": IMAGE, "mimeType": "image/png"}]
        elif name == "test_audio_content":
            content = [{"type": "audio", "data": AUDIO, "mimeType": "audio/wav"}]
        elif name == "test_embedded_resource":
            resource = {
                "uri": "test://embedded-resource",
                "mimeType": "text/plain",
                "text": "This is an embedded resource content.",
            }
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
                progress = {
                    "progressToken": token,
                    "progress": step,
                    "total": 100,
                    "message": f"Completed step {step} of 100",
                }
                await self.notify_progress(progress)
                await asyncio.sleep(0.05)
            content = [text(str(token))]
        elif name == "test_error_handling":
            return types.CallToolResult.model_validate(
                self.complete(
                    {"isError": True, "content": [text("This tool intentionally returns an error for testing")]}
                )
            )
        elif name == "test_reconnection":
            await http.close_sse_stream()
            await asyncio.sleep(0.1)
            content = [text("Reconnection test completed successfully.")]
        elif name == "test_sampling":
            request = {"messages": [{"role": "user", "content": text(arguments.get("prompt", ""))}], "maxTokens": 100}
            result = await self.ask_client(call, "sampling/createMessage", request)
            if result is None:
                return needs({ANSWER: {"method": "sampling/createMessage", "params": request}})
            answer = (
                result.get("content", {}).get("text", "No response")
                if isinstance(result.get("content"), dict)
                else "No response"
            )
            content = [text(f"LLM response: {answer}")]
        elif name in ("test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums"):
            if name == "test_elicitation":
                schema = {
                    "type": "object",
                    "properties": {"response": {"type": "string", "description": "User's response"}},
                    "required": ["response"],
                }
                message = arguments.get("message", "")
            elif name == "test_elicitation_sep1034_defaults":
                schema, message = SEP1034_SCHEMA, "Please review and update the form fields with defaults"
            else:
                schema, message = SEP1330_SCHEMA, "Please select options from the enum fields"
            request = {"mode": "form", "message": message, "requestedSchema": schema}
            result = await self.ask_client(call, "elicitation/create", request)
            if result is None:
                return needs({ANSWER: {"method": "elicitation/create", "params": request}})
            content = [
                text(f"User response: action={result.get('action')}, content={json.dumps(result.get('content') or {})}")
            ]
        elif name == "json_schema_2020_12_tool":
            content = [text(f"JSON Schema 2020-12 tool called with: {json.dumps(arguments)}")]
        else:
            raise mcp.ProtocolError(INVALID_PARAMS, f"Unknown tool: {name}")
        return types.CallToolResult.model_validate(self.complete({"content": content}))

    async def ask_client(self, call: dict[str, Any], method: str, params: dict[str, Any]) -> dict[str, Any] | None:
        """The client's answer to one server request (sampling or elicitation) as wire data.

        A surface with server requests sends it at once. A stateless surface has none: None says to answer an
        input request for it (the runtime sends that to a session's client as an ordinary request and runs the
        handler again), and the rerun finds the answer among `inputResponses`."""
        if MODERN_SURFACE:
            answer = (call.get("inputResponses") or {}).get(ANSWER)
            return answer if isinstance(answer, dict) else None
        send = self.create_message if method == "sampling/createMessage" else self.elicit
        return wire(await send(params))

    async def stateless_tool(self, name: str, call: dict[str, Any]) -> Any:
        """The stateless era's tools: multi round-trip input requests, capability checks, subscriptions."""
        answers = call.get("inputResponses") or {}
        meta = call.get("_meta") or {}
        state = call.get("requestState")
        declared = meta.get("io.modelcontextprotocol/clientCapabilities") or {}
        if not isinstance(answers, dict):
            raise mcp.ProtocolError(INVALID_PARAMS, "inputResponses must be an object")
        if name == "test_input_required_result_elicitation":
            if not isinstance(answers.get("user_name"), dict):
                return needs({"user_name": ASK_NAME})
            person = (answers["user_name"].get("content") or {}).get("name", "stranger")
            return done(f"Hello, {person}!")
        if name == "test_input_required_result_sampling":
            if not isinstance(answers.get("capital_question"), dict):
                return needs({"capital_question": ASK_CAPITAL})
            reply = answers["capital_question"].get("content") or {}
            return done(f"The model said: {reply.get('text', '') if isinstance(reply, dict) else reply}")
        if name == "test_input_required_result_list_roots":
            if not isinstance(answers.get("client_roots"), dict):
                return needs({"client_roots": ASK_ROOTS})
            roots = answers["client_roots"].get("roots") or []
            return done("Roots: " + ", ".join(str(r.get("uri")) for r in roots if isinstance(r, dict)))
        if name in ("test_input_required_result_request_state", "test_input_required_result_tampered_state"):
            if state is None:
                return needs({"confirm": ask("Please confirm", "ok", "boolean")}, sign(name))
            if verify(state) != name:
                raise mcp.ProtocolError(INVALID_PARAMS, "Invalid requestState: integrity check failed")
            if not isinstance(answers.get("confirm"), dict):
                return needs({"confirm": ask("Please confirm", "ok", "boolean")}, sign(name))
            return done("Confirmed: state-ok")
        if name == "test_input_required_result_multiple_inputs":
            wanted = {
                "user_name": ASK_NAME,
                "greeting": {
                    "method": "sampling/createMessage",
                    "params": {"messages": [{"role": "user", "content": text("Generate a greeting")}], "maxTokens": 50},
                },
                "client_roots": ASK_ROOTS,
            }
            if state is None or verify(state) != name or any(not isinstance(answers.get(k), dict) for k in wanted):
                return needs(wanted, sign(name))
            return done("All inputs received")
        if name == "test_input_required_result_multi_round":
            step = verify(state) if state is not None else None
            if step is None or (step == "round-1" and not isinstance(answers.get("step1"), dict)):
                return needs({"step1": ask("Step 1: What is your name?", "name")}, sign("round-1"))
            if step == "round-1" or (step == "round-2" and not isinstance(answers.get("step2"), dict)):
                return needs({"step2": ask("Step 2: What is your favorite color?", "color")}, sign("round-2"))
            return done("Both rounds complete")
        if name == "test_input_required_result_capabilities":
            offered = {
                key: request
                for key, request, capability in (
                    ("user_name", ASK_NAME, "elicitation"),
                    ("capital_question", ASK_CAPITAL, "sampling"),
                    ("client_roots", ASK_ROOTS, "roots"),
                )
                if capability in declared and not isinstance(answers.get(key), dict)
            }
            return needs(offered) if offered else done("Nothing more needed")
        if name == "test_missing_capability":
            if "sampling" not in declared:
                data = {"requiredCapabilities": {"sampling": {}}}
                raise mcp.ProtocolError(-32021, "Missing required client capability: sampling", data)
            return done("sampling is declared")
        if name == "test_streaming_elicitation":
            return needs({"user_name": ASK_NAME})
        if name == "test_logging_tool":
            if meta.get("io.modelcontextprotocol/logLevel") is not None:
                await self.log("test_logging_tool ran")
            return done("Logging tool done")
        if name in ("test_trigger_tool_change", "test_trigger_prompt_change"):
            kind = "toolsListChanged" if name == "test_trigger_tool_change" else "promptsListChanged"
            for queue, honoured in LISTENERS:
                if honoured.get(kind):
                    queue.put_nowait(kind)
            return done(f"{kind} announced")
        arguments = call.get("arguments") or {}
        return done(f"Headers matched: region={arguments.get('region')}, priority={arguments.get('priority')}")

    async def on_subscriptions_listen(self, params: Any) -> Any:
        """Acknowledge the filter, then relay list changes until the client closes the stream.

        Resource subscriptions are honoured where `resources.subscribe` is declared: in sessions, whose
        `resources/subscribe` a stateless surface's runtime serves by running this handler for the session
        (the static resources never change, so no update follows)."""
        wanted = wire(params).get("notifications") or {}
        honoured: dict[str, Any] = {
            k: True for k in ("toolsListChanged", "promptsListChanged") if wanted.get(k) is True
        }
        declared = wire(self.derived_capabilities()).get("resources") or {}
        watched = [uri for uri in wanted.get("resourceSubscriptions") or [] if any(r["uri"] == uri for r in RESOURCES)]
        if declared.get("subscribe") and watched:
            honoured["resourceSubscriptions"] = watched
        await self.notify_subscriptions_acknowledged({"notifications": honoured})  # the runtime names the stream
        queue: asyncio.Queue[str] = asyncio.Queue()
        entry = (queue, honoured)
        LISTENERS.append(entry)
        try:
            while True:
                kind = await queue.get()
                if kind == "toolsListChanged":
                    await self.notify_tool_list_changed()
                else:
                    await self.notify_prompt_list_changed()
        finally:
            LISTENERS.remove(entry)

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
            contents = [
                {"uri": uri, "mimeType": "text/plain", "text": "This is the content of the static text resource."}
            ]
        elif uri == "test://static-binary":
            contents = [{"uri": uri, "mimeType": "image/png", "blob": IMAGE}]
        elif uri == "test://watched-resource":
            contents = [{"uri": uri, "mimeType": "text/plain", "text": "Watched resource content"}]
        elif uri.startswith("test://template/") and uri.endswith("/data"):
            item = uri[len("test://template/") : -len("/data")]
            body = {"id": item, "templateTest": True, "data": f"Data for ID: {item}"}
            contents = [{"uri": uri, "mimeType": "application/json", "text": json.dumps(body)}]
        else:
            code = INVALID_PARAMS if self.stateless else -32002
            raise mcp.ProtocolError(code, f"Resource not found: {uri}", {"uri": uri})
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
            resource = {
                "uri": arguments.get("resourceUri", "test://example"),
                "mimeType": "text/plain",
                "text": "Embedded resource content for testing.",
            }
            messages = [
                {"role": "user", "content": {"type": "resource", "resource": resource}},
                {"role": "user", "content": text("Please process the embedded resource above.")},
            ]
        elif name == "test_input_required_result_prompt" and self.stateless:
            answer = (call.get("inputResponses") or {}).get("user_context")
            if not isinstance(answer, dict):
                return needs({"user_context": ask("What context should the prompt use?", "context")})
            context = (answer.get("content") or {}).get("context", "")
            messages = [{"role": "user", "content": text(f"Use this context: {context}")}]
        elif name == "test_prompt_with_image":
            messages = [
                {"role": "user", "content": {"type": "image", "data": IMAGE, "mimeType": "image/png"}},
                {"role": "user", "content": text("Please analyze the image above.")},
            ]
        else:
            raise mcp.ProtocolError(INVALID_PARAMS, f"Unknown prompt: {name}")
        return types.GetPromptResult.model_validate(self.complete({"messages": messages}))

    async def on_set_level(self, params: Any) -> Any:
        """Accept a log level."""
        await self.log(f"Log level set to: {wire(params)['level']}")
        return types.EmptyResult.model_validate({})

    async def on_complete(self, params: Any) -> Any:
        """No completions."""
        return types.CompleteResult.model_validate(
            self.complete({"completion": {"values": [], "total": 0, "hasMore": False}})
        )


# --- the tasks extension (SEP-2663), when PACKAGE was generated with it (`--extension tasks`) -----------

try:
    tasks_ext = importlib.import_module(f"{PACKAGE}.ext.tasks")
except ModuleNotFoundError:
    tasks_ext = None
TASKS = importlib.import_module(f"{PACKAGE}.runtime.tasks").TaskRunner(ttl_ms=600_000, poll_interval_ms=200)
"""The task runner every request's server shares (a stateless server is made per request)."""
NUMBER = {"type": "number"}
TASK_TOOLS = [
    tool("greet", "Greets by name (never a task)", {"type": "object", "properties": {"name": {"type": "string"}}}),
    tool(
        "slow_compute",
        "Sleeps, then answers; a task when the client declared the tasks extension",
        {"type": "object", "properties": {"seconds": NUMBER, "label": {"type": "string"}}},
    ),
    tool("failing_job", "A task (required) whose tool result is an error"),
    tool("protocol_error_job", "A task (required) that fails with a JSON-RPC error"),
    tool(
        "confirm_delete",
        "A task (required) asking for confirmation",
        {"type": "object", "properties": {"filename": {"type": "string"}}},
    ),
    tool("multi_input", "A task (required) asking for two inputs at once"),
    tool("test_tool_with_task", "Asks for a name, then answers with a task (required)"),
]
CONFIRM = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}


class TasksServer(EverythingServer):
    """The tasks scenarios' tools, their task behaviour and `tasks/get|update|cancel` over `TASKS`."""

    def derived_capabilities(self) -> Any:
        """Everything's, with the tasks extension declared (the stateless era only)."""
        found = wire(super().derived_capabilities())
        if self.stateless:
            found["extensions"] = tasks_ext.capabilities.server_declaration()
        return types.ServerCapabilities.model_validate(found)

    async def on_list_tools(self, params: Any) -> Any:
        listed = wire(await super().on_list_tools(params))
        if self.stateless:
            listed["tools"] += TASK_TOOLS
        return types.ListToolsResult.model_validate(listed)

    async def on_call_tool(self, params: Any) -> Any:
        call = wire(params)
        name, arguments = call["name"], call.get("arguments") or {}
        if not self.stateless or name not in {t["name"] for t in TASK_TOOLS}:
            return await super().on_call_tool(params)
        if name == "greet":
            return done(f"Hello, {arguments.get('name', 'World')}!")
        seconds = arguments.get("seconds", 1)
        seconds = min(float(seconds), 120.0) if isinstance(seconds, (int, float)) else 1.0
        if name == "slow_compute" and tasks_ext.IDENTIFIER not in self.negotiated_extensions():
            await asyncio.sleep(min(seconds, 5))
            return done(f"computed {arguments.get('label', '')}")
        self.require_extension(tasks_ext.IDENTIFIER)
        if name == "test_tool_with_task" and not call.get("inputResponses"):
            return needs({"user_name": ask("What is your name?", "name")})
        work = {
            "slow_compute": lambda ctx: self.slow(seconds, arguments.get("label", "")),
            "failing_job": lambda ctx: self.failing(),
            "protocol_error_job": lambda ctx: self.protocol_error(),
            "confirm_delete": lambda ctx: self.confirm(ctx, str(arguments.get("filename", ""))),
            "multi_input": lambda ctx: self.two_inputs(ctx),
            "test_tool_with_task": lambda ctx: self.greet_later(call["inputResponses"]),
        }[name]
        return tasks_ext.types.CreateTaskResult.model_validate(await TASKS.start(work))

    async def slow(self, seconds: float, label: str) -> Any:
        await asyncio.sleep(seconds)
        return done(f"computed {label} after {seconds:g} s")

    async def failing(self) -> Any:
        await asyncio.sleep(1)
        return types.CallToolResult.model_validate(
            {"resultType": "complete", "isError": True, "content": [text("the job failed")]}
        )

    async def protocol_error(self) -> Any:
        await asyncio.sleep(0.2)
        raise mcp.ProtocolError(-32000, "the job hit a protocol error")

    async def confirm(self, ctx: Any, filename: str) -> Any:
        answers = await ctx.ask({"confirm": {"method": "elicitation/create", "params": {"message": f"Delete {filename}?", "requestedSchema": CONFIRM}}})
        accepted = (answers["confirm"] or {}).get("content", {}).get("confirm") is True
        return done(f"{filename} {'deleted' if accepted else 'kept'}")

    async def two_inputs(self, ctx: Any) -> Any:
        answers = await ctx.ask({"first": ask("First name?", "name"), "second": ask("Second name?", "name")})
        return done(" and ".join(str((answers[k] or {}).get("content", {}).get("name")) for k in ("first", "second")))

    async def greet_later(self, responses: Any) -> Any:
        answer = responses.get("user_name") if isinstance(responses, dict) else None
        name = (answer or {}).get("content", {}).get("name", "nobody") if isinstance(answer, dict) else "nobody"
        await asyncio.sleep(0.2)
        return done(f"Hello, {name}!")

    async def on_subscriptions_listen(self, params: Any) -> Any:
        """Task status notifications (`notifications.taskIds`, the tasks extension's) until the listed tasks
        end, answering the listen request then; any other listen as Everything's."""
        wanted = wire(params).get("notifications") or {}
        if not self.stateless or "taskIds" not in wanted:
            return await super().on_subscriptions_listen(params)
        self.require_extension(tasks_ext.IDENTIFIER)
        async with TASKS.watch(wanted["taskIds"]) as watch:
            await self.notify_subscriptions_acknowledged({"notifications": {"taskIds": watch.task_ids}})
            async for state in watch:
                await self.notify_task_status(state)
        meta = {"io.modelcontextprotocol/subscriptionId": runtime.REQUEST_ID.get()}
        return types.SubscriptionsListenResult.model_validate({"_meta": meta, "resultType": "complete"})

    async def on_get_task(self, params: Any) -> Any:
        found = await TASKS.get(wire(params)["taskId"])
        return tasks_ext.methods.parse_result("tasks/get", {**found, "resultType": "complete"})

    async def on_update_task(self, params: Any) -> Any:
        request = wire(params)
        await TASKS.update(request["taskId"], request.get("inputResponses"))
        return tasks_ext.types.UpdateTaskResult.model_validate({"resultType": "complete"})

    async def on_cancel_task(self, params: Any) -> Any:
        await TASKS.cancel(wire(params)["taskId"])
        return tasks_ext.types.CancelTaskResult.model_validate({"resultType": "complete"})


# --- the skills extension (SEP-2640) on the package generated with extensions: the skills under ./skills ------

SKILLS = importlib.import_module(f"{PACKAGE}.runtime.skills").SkillDirectory(
    pathlib.Path(__file__).resolve().parent / "skills"
)


class SkillsServer(TasksServer):
    """The tasks server with the fixture's skill directory mounted (`skills/list`, `skills/get`,
    `resources/directory/read`, its SKILL.md in `resources/list`, its files in `resources/read`)."""

    mounts = (SKILLS,)


def main() -> None:
    """Serve on 127.0.0.1:PORT until killed."""
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 3001
    app = http.streamable_http_app(SkillsServer if tasks_ext is not None else EverythingServer)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
