"""Every public name of the generated Server and Client classes, decided in one place.

The runtime's own public members keep their names; handlers (`on_<python_name>`) and calls
(`<python_name>`, `notify_<python_name>`) come after them in schema order and take a trailing `_`
when their name is taken. Generated names never start with `_`, so the runtime's private members
are out of their reach.
"""

from __future__ import annotations

from . import ir
from .naming import unique

PEER_MEMBERS = (
    "handle",
    "attach",
    "send_request",
    "send_notification",
    "conversion_policy",
    "result_defaults",
    "protocol_version",
)
"""Public members of the runtime both classes share."""

SIDE_MEMBERS: dict[ir.Side, tuple[str, ...]] = {
    "server": (
        "name",
        "version",
        "title",
        "instructions",
        "peer_info",
        "capabilities",
        "derived_capabilities",
        "server_info",
    ),
    "client": (
        "name",
        "version",
        "title",
        "peer_info",
        "capabilities",
        "derived_capabilities",
        "client_info",
        "request_meta",
        "start_session",
        "preferred_version",
        "discover_timeout",
        "initialize_params",
    ),
}
"""Public members of each side's class beyond the shared runtime."""

CLASS_NAMES: dict[ir.Side, str] = {"server": "Server", "client": "Client"}


def _other(side: ir.Side) -> ir.Side:
    return "client" if side == "server" else "server"


def handles(side: ir.Side, method: ir.MethodSpec) -> bool:
    """True when `side`'s class has a handler for `method`: the other side sends it, over the wire or
    (for the client) embedded in an input-required result."""
    return method.sent_by(_other(side)) and (not method.embedded or side == "client")


def calls(side: ir.Side, method: ir.MethodSpec) -> bool:
    """True when `side`'s class has a typed call sending `method` over the wire."""
    return method.sent_by(side) and not method.embedded


def runtime_members(side: ir.Side) -> tuple[tuple[str, str], ...]:
    """(role, Python name) of each public runtime member of `side`'s class: the same for every schema."""
    return tuple((m, m) for m in PEER_MEMBERS + SIDE_MEMBERS[side])


def stub_names(protocol: ir.Protocol, side: ir.Side) -> ir.StubNames:
    """The names of `side`'s class for the surface revision `protocol`, collisions resolved."""
    members = runtime_members(side)
    taken = {name for _, name in members}
    handlers = tuple(
        ir.StubMethod(m.name, unique(f"on_{m.python_name}", taken)) for m in protocol.methods if handles(side, m)
    )
    outgoing = tuple(
        ir.StubMethod(m.name, unique(m.python_name if m.kind == "request" else f"notify_{m.python_name}", taken))
        for m in protocol.methods
        if calls(side, m)
    )
    return ir.StubNames(
        side=side,
        class_name=CLASS_NAMES[side],
        members=members,
        handlers=handlers,
        calls=outgoing,
    )
