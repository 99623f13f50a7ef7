"""Template view of the HTTP transport: the era of a revision and the request fields mirrored into headers."""

from __future__ import annotations

from dataclasses import dataclass

from . import ir
from .stubviews import request_meta

# Params fields a request's `Mcp-Name` header mirrors, in the order they are looked for.
_NAME_FIELDS = ("name", "uri")


@dataclass(frozen=True)
class HttpView:
    """What the runtime tells the HTTP transport about a revision."""

    stateless: bool
    """True in the era without handshake or session (2026-07-28 on): each request carries its version."""
    name_headers: tuple[tuple[str, str], ...]
    """(request method, params field) mirrored in the `Mcp-Name` header (stateless era only)."""
    tool_headers: tuple[str, str, str] | None
    """(call method, list method, result field listing the tools) for `x-mcp-header` parameter headers."""


def _fields(protocol: ir.Protocol, name: str | None) -> tuple[ir.Field, ...]:
    if name is None:
        return ()
    d = protocol.definition(name)
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


def _tool_headers(protocol: ir.Protocol) -> tuple[str, str, str] | None:
    """The call that takes `arguments` for a named tool, and the list request whose result carries its `inputSchema`."""
    call = next(
        (
            m.name
            for m in protocol.methods
            if _name_field(protocol, m) == "name"
            and any(
                f.wire_name == "arguments" and f.type == ir.DictOf(ir.AnyType()) for f in _fields(protocol, m.params)
            )
        ),
        None,
    )
    for m in protocol.methods:
        for f in _fields(protocol, m.result):
            item = f.type.item if isinstance(f.type, ir.ListOf) else None
            if call is not None and isinstance(item, ir.Ref):
                if any(g.wire_name == "inputSchema" for g in _fields(protocol, item.name)):
                    return (call, m.name, f.wire_name)
    return None


def http_view(protocol: ir.Protocol) -> HttpView:
    """The HTTP facts of a revision, read from its schema."""
    stateless = request_meta(protocol)
    if not stateless:
        return HttpView(False, (), None)
    names = tuple((m.name, field) for m in protocol.methods if (field := _name_field(protocol, m)) is not None)
    return HttpView(True, names, _tool_headers(protocol))
