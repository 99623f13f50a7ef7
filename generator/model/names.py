"""Every public name of the generated Server and Client classes, decided in one place.

The public members the classes inherit from the runtime keep their names (read from the runtime's own
classes); handlers (`on_<python_name>`) and calls (`<python_name>`, `notify_<python_name>`) come after
them in schema order and take a trailing `_` when their name is taken. Generated names never start
with `_`, so the runtime's private members are out of their reach.
"""

from __future__ import annotations

from . import ir
from .naming import unique

CLASS_NAMES: dict[ir.Side, str] = {"server": "Server", "client": "Client"}
RUNTIME_BASES: dict[ir.Side, tuple[str, str]] = {"server": ("server", "ServerBase"), "client": ("client", "ClientBase")}
"""The runtime module and class each side's generated class derives from."""
INITIALIZE_PARAMS = "initialize_params"
"""The member of a Client of a session-era surface building its initialize params (reserved on every Client)."""


def _other(side: ir.Side) -> ir.Side:
    return "client" if side == "server" else "server"


def handles(side: ir.Side, method: ir.MethodSpec) -> bool:
    """True when `side`'s class has a handler for `method`: the other side sends it, over the wire or
    (for the client) embedded in an input-required result."""
    return method.sent_by(_other(side)) and (not method.embedded or side == "client")


def calls(side: ir.Side, method: ir.MethodSpec) -> bool:
    """True when `side`'s class has a typed call sending `method` over the wire."""
    return method.sent_by(side) and not method.embedded


def runtime_members(side: ir.Side) -> tuple[str, ...]:
    """The public members `side`'s class inherits from the runtime (`ServerBase`, `ClientBase`)."""
    from ..inputs.packaged_runtime import class_members

    own = (INITIALIZE_PARAMS,) if side == "client" else ()
    return tuple(sorted({*class_members(*RUNTIME_BASES[side]), *own}))


def stub_names(protocol: ir.Protocol, side: ir.Side) -> ir.StubNames:
    """The names of `side`'s class for the surface revision `protocol`, collisions resolved."""
    members = runtime_members(side)
    taken = set(members)
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
