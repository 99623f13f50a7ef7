"""Template views of the Server and Client stubs: handlers, calls and capabilities per side."""

from __future__ import annotations

from dataclasses import dataclass

from . import ir
from .errors import SchemaError
from .pysource import string_literal

# Attributes of the generated Server/Client base classes that a handler or call name must not take.
STUB_RESERVED = frozenset(
    {
        "handle",
        "send_request",
        "send_notification",
        "attach",
        "name",
        "version",
        "title",
        "instructions",
        "capabilities",
        "peer_info",
        "derived_capabilities",
        "initialize_params",
        "start_session",
        "request_meta",
    }
)


@dataclass(frozen=True)
class StubMethodView:
    """One method as a stub sees it: its incoming handler and outgoing call, typed."""

    name_literal: str
    kind: str
    handler: str
    call: str
    params: str
    params_optional: bool
    result: str
    default: str
    capability: str


@dataclass(frozen=True)
class SideView:
    """What one side's base class (Server or Client) handles and sends."""

    side: str
    class_name: str
    incoming: tuple[StubMethodView, ...]
    outgoing: tuple[StubMethodView, ...]
    capabilities_model: str | None
    handshake: str | None


def _result_annotation(m: ir.MethodSpec) -> str:
    """The result annotation of a request as plain `types.A | types.B` (no discriminator wrapper)."""
    t = m.result_type
    if isinstance(t, ir.UnionOf) and all(isinstance(x, ir.Ref) for x in t.members):
        return " | ".join(f"types.{x.name}" for x in t.members if isinstance(x, ir.Ref))
    if isinstance(t, ir.Ref):
        return f"types.{t.name}"
    return f"types.{m.result}" if m.result else "None"


def _capability(protocol: ir.Protocol, side: str, m: ir.MethodSpec) -> str:
    """`(group, flag, value)` of the capability that handling `m` advertises, as Python source, or "None".

    The group is the capabilities field named after the method's first path segment (singular or
    plural); the flag is that group's field named after the last segment (`resources/subscribe`).
    """
    try:
        caps = protocol.definition(
            "ServerCapabilities" if side == "server" else "ClientCapabilities"
        )
    except KeyError:
        return "None"
    if not isinstance(caps, ir.Model) or "/" not in m.name:
        return "None"
    first, last = m.name.split("/")[0], m.name.split("/")[-1]
    group = next((f for f in caps.fields if f.wire_name in (first, first + "s")), None)
    if group is None:
        return "None"
    flag = "None"
    if isinstance(group.type, ir.Ref):
        sub = protocol.definition(group.type.name)
        hit = next((f for f in getattr(sub, "fields", ()) if f.wire_name == last), None)
        if hit is not None:
            value = "True" if hit.type == ir.Primitive("boolean") else "{}"
            flag = f"({string_literal(hit.wire_name)}, {value})"
    return f"({string_literal(group.wire_name)}, {flag})"


def request_meta(protocol: ir.Protocol) -> bool:
    """True when every request carries the client's version and capabilities in `_meta` (2026-07-28)."""
    try:
        meta = protocol.definition("RequestMetaObject")
    except KeyError:
        return False
    return isinstance(meta, ir.Model) and any(
        f.wire_name == "io.modelcontextprotocol/protocolVersion" for f in meta.fields
    )


def _params_optional(protocol: ir.Protocol, m: ir.MethodSpec, meta_filled: bool) -> bool:
    """True when a call may omit params (absent in the schema, or only a `_meta` the stub fills in)."""
    if not m.params_required or m.params is None:
        return True
    if not meta_filled:
        return False
    params = protocol.definition(m.params)
    return isinstance(params, ir.Model) and all(
        f.wire_name == "_meta" for f in params.fields if f.required
    )


def _default(side: str, m: ir.MethodSpec) -> str:
    """What an incoming handler does until overridden: answer, stay silent, or -32601."""
    if m.kind == "notification":
        return "noop"
    if m.name == "ping":
        return "empty"
    if side == "server" and m.name == "initialize":
        return "initialize"
    if side == "server" and m.name == "server/discover":
        return "discover"
    return "not_found"


def _stub_method(
    protocol: ir.Protocol, side: str, m: ir.MethodSpec, meta_filled: bool
) -> StubMethodView:
    params = f"types.{m.params}" if m.params else "None"
    return StubMethodView(
        name_literal=string_literal(m.name),
        kind=m.kind,
        handler=f"on_{m.python_name}",
        call=m.python_name if m.kind == "request" else f"notify_{m.python_name}",
        params=params,
        params_optional=_params_optional(protocol, m, meta_filled),
        result=_result_annotation(m) if m.kind == "request" else "None",
        default=_default(side, m),
        capability=_capability(protocol, side, m),
    )


def side_view(protocol: ir.Protocol, side: ir.Side) -> SideView:
    """The view of the Server (side="server") or Client base class of a revision."""
    other: ir.Side = "client" if side == "server" else "server"
    live = [m for m in protocol.methods if not m.embedded]
    meta_filled = side == "client" and request_meta(protocol)
    incoming = tuple(_stub_method(protocol, side, m, False) for m in live if m.sent_by(other))
    outgoing = tuple(_stub_method(protocol, side, m, meta_filled) for m in live if m.sent_by(side))
    names = [m.handler for m in incoming] + [m.call for m in outgoing]
    clashes = sorted({n for n in names if names.count(n) > 1 or n in STUB_RESERVED})
    if clashes:
        raise SchemaError(f"{side} stub names clash: {', '.join(clashes)}")
    methods = {m.name for m in protocol.methods}
    handshake = (
        "initialize"
        if "initialize" in methods
        else "server/discover" if "server/discover" in methods else None
    )
    caps = "ServerCapabilities" if side == "server" else "ClientCapabilities"
    return SideView(
        side=side,
        class_name="Server" if side == "server" else "Client",
        incoming=incoming,
        outgoing=outgoing,
        capabilities_model=(
            f"types.{caps}" if caps in {d.name for d in protocol.definitions} else None
        ),
        handshake=handshake,
    )
