"""A tiny but complete MCP session schema: handshake, capabilities, requests and notifications both ways."""

from __future__ import annotations

from .schemas import Schema, const, mcp_schema, notification, obj, ref, request, result

STRING = {"type": "string"}
BOOLEAN = {"type": "boolean"}
FLAGS = {"type": "object", "additionalProperties": {}}


def _params(properties: Schema, required: list[str]) -> Schema:
    return obj({"_meta": FLAGS, **properties}, required)


def session_schema(*, batching: bool) -> Schema:
    """The session schema; `batching` adds a JSON-RPC batch definition (as 2025-03-26 has)."""
    return mcp_schema(
        {
            "Implementation": obj(
                {"name": STRING, "version": STRING, "title": STRING}, ["name", "version"]
            ),
            "ServerCapabilities": obj(
                {
                    "tools": obj({"listChanged": BOOLEAN}),
                    "resources": obj({"subscribe": BOOLEAN, "listChanged": BOOLEAN}),
                    "logging": FLAGS,
                    "completions": FLAGS,
                    "experimental": {"type": "object", "additionalProperties": FLAGS},
                }
            ),
            "ClientCapabilities": obj(
                {
                    "roots": obj({"listChanged": BOOLEAN}),
                    "elicitation": obj({"create": FLAGS}),
                    "sampling": FLAGS,
                }
            ),
            "InitializeRequest": request(
                "initialize",
                _params(
                    {
                        "protocolVersion": STRING,
                        "capabilities": ref("ClientCapabilities"),
                        "clientInfo": ref("Implementation"),
                    },
                    ["protocolVersion", "capabilities", "clientInfo"],
                ),
                params_required=True,
            ),
            "InitializeResult": result(
                {
                    "protocolVersion": STRING,
                    "capabilities": ref("ServerCapabilities"),
                    "serverInfo": ref("Implementation"),
                    "instructions": STRING,
                },
                ["protocolVersion", "capabilities", "serverInfo"],
            ),
            "InitializedNotification": notification("notifications/initialized"),
            "PingRequest": request("ping"),
            "TextContent": obj({"type": const("text"), "text": STRING}, ["type", "text"]),
            "Tool": obj({"name": STRING}, ["name"]),
            "ListToolsRequest": request("tools/list", _params({"cursor": STRING}, [])),
            "ListToolsResult": result(
                {"tools": {"type": "array", "items": ref("Tool")}}, ["tools"]
            ),
            "CallToolRequest": request(
                "tools/call",
                _params({"name": STRING, "arguments": FLAGS}, ["name"]),
                params_required=True,
            ),
            "CallToolResult": result(
                {"content": {"type": "array", "items": ref("TextContent")}}, ["content"]
            ),
            "SubscribeRequest": request(
                "resources/subscribe", _params({"uri": STRING}, ["uri"]), params_required=True
            ),
            "SetLevelRequest": request(
                "logging/setLevel", _params({"level": STRING}, ["level"]), params_required=True
            ),
            "CompleteRequest": request(
                "completion/complete", _params({"prefix": STRING}, ["prefix"]), params_required=True
            ),
            "CompleteResult": result({"values": {"type": "array", "items": STRING}}, ["values"]),
            "ListRootsRequest": request("roots/list"),
            "ListRootsResult": result({"roots": {"type": "array", "items": STRING}}, ["roots"]),
            "ElicitRequest": request(
                "elicitation/create",
                _params({"message": STRING}, ["message"]),
                params_required=True,
            ),
            "ElicitResult": result(
                {"action": {"enum": ["accept", "decline"], "type": "string"}}, ["action"]
            ),
            "CreateMessageRequest": request(
                "sampling/createMessage",
                _params({"prompt": STRING}, ["prompt"]),
                params_required=True,
            ),
            "CreateMessageResult": result({"text": STRING}, ["text"]),
            "CancelledNotification": notification(
                "notifications/cancelled",
                _params({"requestId": ref("RequestId"), "reason": STRING}, ["requestId"]),
                params_required=True,
            ),
            "ProgressNotification": notification(
                "notifications/progress",
                _params(
                    {"progressToken": ref("RequestId"), "progress": {"type": "number"}},
                    ["progressToken", "progress"],
                ),
                params_required=True,
            ),
        },
        client_requests=[
            "InitializeRequest",
            "PingRequest",
            "ListToolsRequest",
            "CallToolRequest",
            "SubscribeRequest",
            "SetLevelRequest",
            "CompleteRequest",
        ],
        server_requests=[
            "PingRequest",
            "ListRootsRequest",
            "ElicitRequest",
            "CreateMessageRequest",
        ],
        client_notifications=["InitializedNotification", "CancelledNotification"],
        server_notifications=["CancelledNotification", "ProgressNotification"],
        batching=batching,
    )
