"""Template views of the Server and Client classes: handlers, calls, capabilities and names per side."""

from __future__ import annotations

from dataclasses import dataclass

from ..model import ir
from .pysource import string_literal
from ..model.names import calls, handles
from .views import indent_doc, result_annotation


@dataclass(frozen=True)
class StubMethodView:
    """One method as a class sees it: its incoming handler or outgoing call, typed, with its docstring."""

    name_literal: str
    kind: str
    handler: str
    handler_literal: str
    call: str
    params: str
    params_optional: bool
    result: str
    default: str
    capability: str
    doc: str


@dataclass(frozen=True)
class SideView:
    """What one side's class (Server or Client) handles and sends, and every public name it has."""

    side: str
    names: dict[str, str]
    incoming: tuple[StubMethodView, ...]
    outgoing: tuple[StubMethodView, ...]
    capabilities_model: str | None
    handshake_result: str | None
    initialize_params: str | None
    info: dict[str, str | None]
    """Wire keys of the `Implementation` object naming this side (`name`, `version`, `title` or None)."""


def _capability(protocol: ir.Protocol, side: str, m: ir.MethodSpec) -> str:
    """`(group, flag, value)` of the capability that handling `m` advertises, as Python source, or "None".

    The group is the capabilities field named after the method's first path segment (singular or
    plural); the flag is that group's field named after the last segment (`resources/subscribe`).
    """
    defs = {d.name: d for d in protocol.definitions}
    caps = defs.get("ServerCapabilities" if side == "server" else "ClientCapabilities")
    if not isinstance(caps, ir.Model) or "/" not in m.name:
        return "None"
    first, last = m.name.split("/")[0], m.name.split("/")[-1]
    group = next((f for f in caps.fields if f.wire_name in (first, first + "s")), None)
    if group is None:
        return "None"
    flag = "None"
    sub = defs.get(group.type.name) if isinstance(group.type, ir.Ref) else None
    hit = next((f for f in sub.fields if f.wire_name == last), None) if isinstance(sub, ir.Model) else None
    if hit is not None:
        value = "True" if hit.type == ir.Primitive("boolean") else "{}"
        flag = f"({string_literal(hit.wire_name)}, {value})"
    return f"({string_literal(group.wire_name)}, {flag})"


def _params_optional(protocol: ir.Protocol, m: ir.MethodSpec, meta_filled: bool) -> bool:
    """True when a call may omit params (absent in the schema, or only a `_meta` the client fills in)."""
    if not m.params_required or m.params is None:
        return True
    if not meta_filled:
        return False
    params = protocol.definition(m.params)
    return isinstance(params, ir.Model) and all(f.wire_name == "_meta" for f in params.fields if f.required)


def _default(lifecycle: ir.Lifecycle, side: str, m: ir.MethodSpec) -> str:
    """What an incoming handler does until overridden: answer, stay silent, or -32601."""
    if m.kind == "notification":
        return "noop"
    if m.name == lifecycle.ping:
        return "empty"
    handshake = (
        lifecycle.legacy.method
        if lifecycle.legacy is not None
        else lifecycle.modern.discover if lifecycle.modern is not None else None
    )
    if side == "server" and m.name == handshake:
        return "handshake"
    return "not_found"


_DEFAULT_DOCS = {
    "noop": "Called on {method}; does nothing until overridden.",
    "empty": "Answer {method} with an empty result.",
    "handshake": "Answer {method} from the name, version, instructions and capabilities.",
    "not_found": "Answer {method}; -32601 (method not found) until overridden.",
}


def _missing_in(package: ir.Package, method: str) -> list[str]:
    """The package's revisions that have no live method `method` (the version gate refuses it there)."""
    return [
        r.protocol.revision
        for r in package.revisions
        if not any(m.name == method and not m.embedded for m in r.protocol.methods)
    ]


def _handler_doc(package: ir.Package, side: str, m: ir.MethodSpec, default: str) -> str:
    text = _DEFAULT_DOCS[default].format(method=repr(m.name))
    if m.embedded:
        text = f"Answer {m.name!r} when a server's input-required result asks for it; -32601 until overridden."
    missing = [] if m.embedded else _missing_in(package, m.name)
    if missing:
        text += f"\n\nNever called in sessions of protocol version {', '.join(missing)}, which do not have this method."
    return indent_doc(text, 8, definition=True) or '""""""'


def _call_doc(package: ir.Package, side: str, m: ir.MethodSpec) -> str:
    peer = "client" if side == "server" else "server"
    text = (
        f"Send {m.name!r} to the {peer} and return its validated result."
        if m.kind == "request"
        else f"Send {m.name!r} to the {peer}."
    )
    missing = _missing_in(package, m.name)
    if missing:
        text += (
            f"\n\nRaises ProtocolError (-32601) in sessions of protocol version {', '.join(missing)}, "
            "which do not have this method."
        )
    return indent_doc(text, 8, definition=True) or '""""""'


def _stub_method(
    package: ir.Package, side: str, m: ir.MethodSpec, handler: str, call: str, outgoing: bool
) -> StubMethodView:
    surface = package.surface_revision
    protocol, lifecycle = surface.protocol, surface.lifecycle
    meta_filled = side == "client" and lifecycle.modern is not None
    default = _default(lifecycle, side, m)
    return StubMethodView(
        name_literal=string_literal(m.name),
        kind=m.kind,
        handler=handler,
        handler_literal=string_literal(handler),
        call=call,
        params=f"types.{m.params}" if m.params else "None",
        params_optional=_params_optional(protocol, m, meta_filled and outgoing),
        result=result_annotation(m) if m.kind == "request" else "None",
        default=default,
        capability=_capability(protocol, side, m),
        doc=_call_doc(package, side, m) if outgoing else _handler_doc(package, side, m, default),
    )


def side_view(package: ir.Package, side: ir.Side) -> SideView:
    """The view of the Server (side="server") or Client class of a package, on its surface revision."""
    surface = package.surface_revision
    protocol, lifecycle = surface.protocol, surface.lifecycle
    names = package.server if side == "server" else package.client
    by_name = {m.name: m for m in protocol.methods}
    incoming = tuple(
        _stub_method(package, side, by_name[h.method], h.python_name, "", False) for h in names.handlers
    )
    outgoing = tuple(_stub_method(package, side, by_name[c.method], "", c.python_name, True) for c in names.calls)
    assert all(handles(side, by_name[h.method]) for h in names.handlers)
    assert all(calls(side, by_name[c.method]) for c in names.calls)
    caps = "ServerCapabilities" if side == "server" else "ClientCapabilities"
    handshake = lifecycle.legacy.result if lifecycle.legacy else lifecycle.modern.result if lifecycle.modern else None
    return SideView(
        side=side,
        names=dict(names.members),
        incoming=incoming,
        outgoing=outgoing,
        capabilities_model=f"types.{caps}" if caps in {d.name for d in protocol.definitions} else None,
        handshake_result=f"types.{handshake}" if handshake else None,
        initialize_params=f"types.{lifecycle.legacy.params}" if lifecycle.legacy else None,
        info=_implementation_keys(protocol, lifecycle),
    )


def _implementation_keys(protocol: ir.Protocol, lifecycle: ir.Lifecycle) -> dict[str, str | None]:
    """The keys of the definition naming a client or server, as literals (`title` only where it exists)."""
    model = next((d for d in protocol.definitions if d.name == lifecycle.implementation), None)
    wires = {f.wire_name for f in model.fields} if isinstance(model, ir.Model) else set()
    return {
        "name": string_literal("name"),
        "version": string_literal("version"),
        "title": string_literal("title") if "title" in wires or model is None else None,
    }
