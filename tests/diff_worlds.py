"""Small hand-written MCP schemas for the `mcpgen diff` tests, and jsonschema as their oracle."""

from __future__ import annotations

from typing import Any

import jsonschema

Schema = dict[str, Any]


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


def obj(properties: dict[str, Any], required: tuple[str, ...] = (), **extra: Any) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "object", "properties": properties, **extra}
    if required:
        node["required"] = list(required)
    return node


def request(method: str, params: str) -> dict[str, Any]:
    return obj({"method": {"const": method, "type": "string"}, "params": ref(params)}, ("method", "params"))


def world(
    call_params: dict[str, Any] | None = None,
    call_result: dict[str, Any] | None = None,
    ask_params: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
    batching: bool = False,
) -> Schema:
    """A protocol with `x/call` (client → server, CallParams/CallResult) and `x/ask` (server → client)."""
    defs: dict[str, Any] = {
        "JSONRPCRequest": obj({"jsonrpc": {"const": "2.0"}, "id": {"type": ["string", "integer"]},
                               "method": {"type": "string"}, "params": {"type": "object"}}, ("jsonrpc", "id", "method")),
        "JSONRPCNotification": obj({"jsonrpc": {"const": "2.0"}, "method": {"type": "string"}}, ("jsonrpc", "method")),
        "JSONRPCResultResponse": obj({"jsonrpc": {"const": "2.0"}, "id": {"type": ["string", "integer"]},
                                      "result": ref("Result")}, ("jsonrpc", "id", "result")),
        "JSONRPCErrorResponse": obj({"jsonrpc": {"const": "2.0"}, "id": {"type": ["string", "integer"]},
                                     "error": obj({"code": {"type": "integer"}, "message": {"type": "string"}},
                                                  ("code", "message"))}, ("jsonrpc", "error")),
        "Result": obj({"_meta": {"type": "object", "additionalProperties": {}}}, additionalProperties={}),
        "CallRequest": request("x/call", "CallParams"),
        "CallParams": call_params or obj({"name": {"type": "string"}}, ("name",)),
        "CallResult": call_result or obj({"value": {"type": "string"}}, ("value",)),
        "AskRequest": request("x/ask", "AskParams"),
        "AskParams": ask_params or obj({"question": {"type": "string"}}, ("question",)),
        "AskResult": obj({"answer": {"type": "string"}}),
        "ClientRequest": {"anyOf": [ref("CallRequest")]},
        "ServerRequest": {"anyOf": [ref("AskRequest")]},
        "ClientResult": {"anyOf": [ref("Result"), ref("AskResult")]},
        "ServerResult": {"anyOf": [ref("Result"), ref("CallResult")]},
        **(extra or {}),
    }
    messages = [ref("JSONRPCRequest"), ref("JSONRPCNotification"), ref("JSONRPCResultResponse"), ref("JSONRPCErrorResponse")]
    if batching:
        defs["JSONRPCBatchRequest"] = {"type": "array", "items": {"anyOf": messages[:2]}}
        defs["JSONRPCBatchResponse"] = {"type": "array", "items": {"anyOf": messages[2:]}}
        messages += [ref("JSONRPCBatchRequest"), ref("JSONRPCBatchResponse")]
    defs["JSONRPCMessage"] = {"anyOf": messages}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}


def accepts(schema: Schema, definition: str, instance: Any) -> bool:
    """The oracle: jsonschema validates `instance` against `definition` of `schema`."""
    probe = {**schema, "$ref": f"#/$defs/{definition}"}
    return bool(jsonschema.Draft202012Validator(probe).is_valid(instance))
