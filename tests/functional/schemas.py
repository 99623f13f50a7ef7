"""Builders of tiny MCP schemas: the JSON-RPC envelope, role unions, requests, notifications, results."""

from __future__ import annotations

import json
from typing import Any, Iterable

DRAFT = "https://json-schema.org/draft/2020-12/schema"
JSONRPC = {"const": "2.0", "type": "string"}
META = {"type": "object", "additionalProperties": {}}
ROLES = ("ClientRequest", "ServerRequest", "ClientNotification", "ServerNotification")

Schema = dict[str, Any]


def ref(name: str) -> Schema:
    """A reference to the definition `name`."""
    return {"$ref": f"#/$defs/{name}"}


def obj(properties: Schema | None = None, required: Iterable[str] = (), **keywords: Any) -> Schema:
    """An object schema with these properties (open unless `additionalProperties` says otherwise)."""
    return {
        "type": "object",
        "properties": dict(properties or {}),
        "required": list(required),
        **keywords,
    }


def const(value: str) -> Schema:
    """A string constant, as the MCP schema spells tags (`method`, `type`, `resultType`)."""
    return {"const": value, "type": "string"}


def _message(
    method: str, params: str | Schema | None, params_required: bool, request: bool
) -> Schema:
    properties: Schema = {"jsonrpc": JSONRPC, "method": const(method)}
    required = ["jsonrpc", "method"]
    if request:
        properties["id"] = ref("RequestId")
        required.append("id")
    if params is not None:
        properties["params"] = ref(params) if isinstance(params, str) else params
        if params_required:
            required.append("params")
    return obj(properties, required)


def request(
    method: str, params: str | Schema | None = None, *, params_required: bool = False
) -> Schema:
    """A request definition: `jsonrpc`, `id`, a constant `method` and optional params (a name is a $ref)."""
    return _message(method, params, params_required, request=True)


def notification(
    method: str, params: str | Schema | None = None, *, params_required: bool = False
) -> Schema:
    """A notification definition: like `request` without an `id`."""
    return _message(method, params, params_required, request=False)


def result(properties: Schema | None = None, required: Iterable[str] = ()) -> Schema:
    """A result definition: an open object with `_meta` and these properties."""
    return obj({"_meta": META, **(properties or {})}, required)


def envelope() -> Schema:
    """The JSON-RPC definitions every MCP schema has (what `roles.envelope` looks for), and `EmptyResult`."""
    return {
        "RequestId": {"type": ["string", "integer"]},
        "JSONRPCRequest": obj(
            {
                "jsonrpc": JSONRPC,
                "id": ref("RequestId"),
                "method": {"type": "string"},
                "params": META,
            },
            ["jsonrpc", "id", "method"],
        ),
        "JSONRPCNotification": obj(
            {"jsonrpc": JSONRPC, "method": {"type": "string"}, "params": META},
            ["jsonrpc", "method"],
        ),
        "Result": result(),
        "EmptyResult": ref("Result"),
        "JSONRPCResultResponse": obj(
            {"jsonrpc": JSONRPC, "id": ref("RequestId"), "result": ref("Result")},
            ["jsonrpc", "id", "result"],
        ),
        "Error": obj(
            {"code": {"type": "integer"}, "message": {"type": "string"}, "data": {}},
            ["code", "message"],
        ),
        "JSONRPCErrorResponse": obj(
            {"jsonrpc": JSONRPC, "id": ref("RequestId"), "error": ref("Error")},
            ["jsonrpc", "error"],
        ),
    }


def mcp_schema(
    definitions: Schema,
    *,
    client_requests: Iterable[str] = (),
    server_requests: Iterable[str] = (),
    client_notifications: Iterable[str] = (),
    server_notifications: Iterable[str] = (),
    batching: bool = False,
) -> Schema:
    """A whole MCP schema: the envelope, `definitions`, and a role union (`anyOf`) per non-empty member list."""
    defs = {**envelope(), **definitions}
    members = (client_requests, server_requests, client_notifications, server_notifications)
    for role, names in zip(ROLES, members):
        listed = [ref(name) for name in names]
        if listed:
            defs[role] = {"anyOf": listed}
    if batching:
        defs["JSONRPCBatchRequest"] = {
            "type": "array",
            "items": {"anyOf": [ref("JSONRPCRequest"), ref("JSONRPCNotification")]},
        }
    return {"$schema": DRAFT, "$defs": defs}


def draft07(schema: Schema) -> Schema:
    """The same schema in draft-07 spelling: `definitions` instead of `$defs` (as 2024-11-05 … 2025-06-18 are)."""
    text = json.dumps(schema["$defs"]).replace('"#/$defs/', '"#/definitions/')
    return {"$schema": "http://json-schema.org/draft-07/schema#", "definitions": json.loads(text)}


def extension_schema(identifier: str | None, definitions: Schema) -> Schema:
    """An extension schema (SEP-2133): its definitions, the core ones it uses among them, and its identifier
    stated in its description as ext-tasks states it (None: not stated)."""
    named = f"Extension Identifier: {identifier}" if identifier else "no identifier"
    return {"$schema": DRAFT, "title": "tiny extension", "description": f"A tiny extension. {named}", "$defs": definitions}
