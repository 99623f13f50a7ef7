"""What a JSON-RPC message is an instance of: its definition, kind and method, from the upstream method table."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping

from .table import MethodTable
from .upstream import Upstream


@dataclass(frozen=True)
class Target:
    """What to check a block as: a definition, and which part of the block is its instance."""

    definition: str
    kind: str  # request, notification, response, error, mapped or typed
    reason: str
    pointer: str = ""  # JSON pointer of the instance inside the block ("" = the whole block)
    inside: str = ""  # the block is the value at this JSON pointer of an otherwise empty instance
    each: bool = False  # the selected value is an array whose every item is an instance
    envelope: str | None = None  # a definition the whole block is also checked against
    method: str | None = None  # the method of a request, notification or response, when the schema has it


def is_message(value: Any) -> bool:
    """True for a JSON-RPC 2.0 message object."""
    return isinstance(value, dict) and "jsonrpc" in value


def id_key(value: Any) -> str:
    """A JSON-RPC id as a key that tells `1` from `"1"` (and any JSON value from any other)."""
    return json.dumps(value, sort_keys=True)


class Pairing:
    """Remembers the requests seen per group so a response finds the request with its id (the latest
    `limit` request ids, so that a long conversation takes bounded memory)."""

    def __init__(self, limit: int = 100_000) -> None:
        self._pending: dict[tuple[str, str], str] = {}
        self._limit = limit

    def note(self, group: str, message: Mapping[str, Any]) -> None:
        """Record a request (a message with `method` and `id`) of `group`."""
        if isinstance(message.get("method"), str) and "id" in message:
            key = (group, id_key(message["id"]))
            self._pending.pop(key, None)
            self._pending[key] = message["method"]
            if len(self._pending) > self._limit:
                del self._pending[next(iter(self._pending))]

    def method_of(self, group: str, message: Mapping[str, Any]) -> str | None:
        """For a response, the method of the latest request of `group` with its id."""
        if "id" not in message or "method" in message:
            return None
        return self._pending.get((group, id_key(message["id"])))


def message_target(value: Mapping[str, Any], table: MethodTable, schema: Upstream, method: str | None) -> Target | None:
    """The target of a JSON-RPC message; `method` is the paired request's method for a response."""
    env = table.envelope
    if "error" in value:
        return Target(env.error, "error", "JSON-RPC error response")
    if isinstance(value.get("method"), str):
        name = value["method"]
        kind = "request" if "id" in value else "notification"
        spec = table.methods.get(name)
        if spec is None:
            generic = env.request if kind == "request" else env.notification
            return Target(generic, kind, f"method {name} is not in the schema: generic {kind}")
        envelope = env.request if spec.kind == "request" else env.notification
        note = "" if spec.kind == kind else f", a {spec.kind} shown as a {kind}"
        return Target(spec.message, spec.kind, f"method {name}{note}", envelope=envelope, method=name)
    if "result" in value:
        spec = table.methods.get(method) if method is not None else None
        if spec is None or not spec.results:
            return None
        chosen = next((c for c in spec.results if schema.accepts(c, value["result"])), spec.results[0])
        return Target(
            chosen,
            "response",
            f"result of {method} (request id {id_key(value.get('id'))})",
            pointer="/result",
            envelope=spec.response or env.result,
            method=method,
        )
    return None
