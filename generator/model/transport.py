"""What the Streamable HTTP transport needs to know of a modern revision: the request fields mirrored
in `Mcp-Name` headers and the tool arguments sent as `Mcp-Param-*` headers, read from its schema."""

from __future__ import annotations

from ..runtime.facts import ToolHeaders
from . import ir

# Params fields a request's `Mcp-Name` header mirrors, in the order they are looked for.
_NAME_FIELDS = ("name", "uri")


def _fields(protocol: ir.Protocol, name: str | None) -> tuple[ir.Field, ...]:
    d = next((d for d in protocol.definitions if d.name == name), None)
    return d.fields if isinstance(d, ir.Model) else ()


def _name_field(protocol: ir.Protocol, m: ir.MethodSpec) -> str | None:
    """The required top-level string field of a client request's params that names its target."""
    if m.kind != "request" or not m.sent_by("client"):
        return None
    by_wire = {f.wire_name: f for f in _fields(protocol, m.params)}
    for wire in _NAME_FIELDS:
        f = by_wire.get(wire)
        if f is not None and f.required and f.type == ir.Primitive("string"):
            return wire
    return None


def name_headers(protocol: ir.Protocol) -> tuple[tuple[str, str], ...]:
    """(request method, params field) of every client request whose target an `Mcp-Name` header mirrors."""
    return tuple(
        (m.name, field) for m in protocol.methods if (field := _name_field(protocol, m)) is not None
    )


def tool_headers(protocol: ir.Protocol) -> ToolHeaders | None:
    """The call that takes `arguments` for a named tool, and the list request whose result carries each
    tool's `inputSchema` (where `x-mcp-header` marks arguments), with the keys of both."""
    call = next(
        (
            m
            for m in protocol.methods
            if _name_field(protocol, m) == "name"
            and any(
                f.wire_name == "arguments" and f.type == ir.DictOf(ir.AnyType())
                for f in _fields(protocol, m.params)
            )
        ),
        None,
    )
    if call is None:
        return None
    for m in protocol.methods:
        for f in _fields(protocol, m.result):
            item = f.type.item if isinstance(f.type, ir.ListOf) else None
            if isinstance(item, ir.Ref) and any(
                g.wire_name == "inputSchema" for g in _fields(protocol, item.name)
            ):
                params = {g.wire_name for g in _fields(protocol, m.params)}
                result = {g.wire_name for g in _fields(protocol, m.result)}
                return ToolHeaders(
                    call=call.name,
                    listing=m.name,
                    tools_key=f.wire_name,
                    name_key="name",
                    schema_key="inputSchema",
                    arguments_key="arguments",
                    cursor_key="cursor" if "cursor" in params else None,
                    next_cursor_key="nextCursor" if "nextCursor" in result else None,
                    ttl_key="ttlMs" if "ttlMs" in result else None,
                    scope_key="cacheScope" if "cacheScope" in result else None,
                )
    return None
