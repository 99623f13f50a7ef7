"""Which side writes, and which side reads, each definition of a revision."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from .. import ir
from ..protocol import refs

SIDES: tuple[ir.Side, ...] = ("client", "server")


def peer(side: ir.Side) -> ir.Side:
    """The other side of the connection."""
    return "server" if side == "client" else "client"


@dataclass(frozen=True)
class Flow:
    """For every definition name, the sides that put it on the wire (their peers read it)."""

    writers: dict[str, frozenset[ir.Side]]

    def roles(self, name: str | None) -> tuple[frozenset[ir.Side], frozenset[ir.Side]]:
        """(writers, readers) of a definition; unreachable definitions count as written by both sides."""
        if name is None:
            return frozenset(), frozenset()
        writers = self.writers.get(name, frozenset(SIDES))
        return writers, frozenset(peer(s) for s in writers)


def _mentions(d: ir.Definition) -> Iterator[str]:
    if isinstance(d, ir.Alias):
        yield from refs(d.type)
        return
    for f in d.fields:
        yield from refs(f.type)
    yield from refs(d.extra)


def _roots(protocol: ir.Protocol) -> Iterator[tuple[ir.Side, str]]:
    for m in protocol.methods:
        for side in m.senders:
            yield side, m.message
            if m.params:
                yield side, m.params
            if m.result_type is not None:
                for name in refs(m.result_type):
                    yield peer(side), name
            elif m.result:
                yield peer(side), m.result
    for side in SIDES:
        for kind in ("Request", "Notification", "Result"):
            yield side, f"{side.capitalize()}{kind}"
    env = protocol.envelope
    for name in (env.error_model, env.result_response_model, env.request_model, env.notification_model):
        for side in SIDES:
            yield side, name


def flow_of(protocol: ir.Protocol) -> Flow:
    """Propagate writers from every method and envelope model through the references."""
    defs = {d.name: d for d in protocol.definitions}
    writers: dict[str, set[ir.Side]] = {}
    for side, root in _roots(protocol):
        stack = [root]
        while stack:
            name = stack.pop()
            seen = writers.setdefault(name, set())
            if side in seen or name not in defs:
                seen.add(side)
                continue
            seen.add(side)
            stack.extend(_mentions(defs[name]))
    return Flow({k: frozenset(v) for k, v in writers.items()})
