"""What a peer's class says of itself, on either side: the handlers it overrides, the capabilities they
advertise and the `Implementation` object naming it."""

from __future__ import annotations

from typing import Any

from .peer import Peer


def stub_class(peer: type[Peer]) -> type[Peer]:
    """The generated class a peer's class derives from: the one whose `handlers` its handlers default to."""
    return next(c for c in peer.__mro__ if "handlers" in c.__dict__)


def overridden(peer: Peer, method: str) -> str | None:
    """The name of the handler of `method` when `peer`'s class overrides it."""
    cls = type(peer)
    handler = cls.handlers.get(method)
    if handler is None or getattr(cls, handler) is getattr(stub_class(cls), handler):
        return None
    return handler


def overridden_capabilities(peer: Peer) -> dict[str, dict[str, Any]]:
    """The capabilities object advertised by the handlers `peer`'s class overrides."""
    table = type(peer).handler_capabilities
    found: dict[str, dict[str, Any]] = {}
    for method, capability in table.items():
        if overridden(peer, method) is None:
            continue
        entry = found.setdefault(capability.group, {})
        if capability.flag is not None:
            entry[capability.flag] = capability.value
    return found


def implementation_info(peer: Peer, name: str, version: str, title: str | None) -> dict[str, Any]:
    """The `Implementation` object naming a client or server, with the keys the surface revision has."""
    facts = type(peer).revisions.surface.lifecycle.implementation
    if facts is None:
        return {"name": name, "version": version, **({"title": title} if title else {})}
    info: dict[str, Any] = {facts.name_key: name, facts.version_key: version}
    if facts.title_key is not None and title is not None:
        info[facts.title_key] = title
    return info
