"""Which side writes, and which side reads, each definition of a revision."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

from ...model import ir
from ...model.protocol import refs

SIDES: tuple[ir.Side, ...] = ("client", "server")


def peer(side: ir.Side) -> ir.Side:
    """The other side of the connection."""
    return "server" if side == "client" else "client"


@dataclass(frozen=True)
class Flow:
    """For every definition name, the sides that put it on the wire (their peers read it)."""

    writers: dict[str, frozenset[ir.Side]]

    def roles(self, name: str | None) -> tuple[frozenset[ir.Side], frozenset[ir.Side]]:
        """(writers, readers) of a definition; one nothing reaches counts as written by both sides."""
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


def _method_roots(protocol: ir.Protocol) -> Iterator[tuple[ir.Side, str]]:
    """The sender writes a message and its params; its peer writes the result."""
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


def _envelope_models(protocol: ir.Protocol) -> tuple[str, ...]:
    env = protocol.envelope
    return (env.error_model, env.result_response_model, env.request_model, env.notification_model)


def _extends(sub: ir.Model, base: ir.Model, defs: dict[str, ir.Definition]) -> bool:
    """True when `sub` has every property of `base`, the ones typed by named definitions typed alike."""
    fields = {f.wire_name: f for f in sub.fields}

    def named(t: ir.TypeExpr) -> set[str]:
        return {r for r in refs(t) if (d := defs.get(r)) is not None and d.is_definition}

    return all(f.wire_name in fields and named(f.type) == named(fields[f.wire_name].type) for f in base.fields)


def _spread(defs: dict[str, ir.Definition], writers: dict[str, set[ir.Side]], side: ir.Side, root: str,
            named: bool = True) -> None:
    """Mark `root` and what it mentions as written by `side` (`named=False`: inline objects only)."""
    stack = [root]
    while stack:
        name = stack.pop()
        seen = writers.setdefault(name, set())
        if side in seen or name not in defs:
            seen.add(side)
            continue
        seen.add(side)
        stack.extend(m for m in _mentions(defs[name]) if named or (m in defs and not defs[m].is_definition))


def flow_of(protocol: ir.Protocol) -> Flow:
    """Writers from every method, through the references; envelope models are written by both sides.

    A definition no message reaches (a base like `PaginatedResult` that messages repeat rather than
    reference) takes the writers of the reached definitions that extend it.
    """
    defs = {d.name: d for d in protocol.definitions}
    writers: dict[str, set[ir.Side]] = {}
    for side, root in _method_roots(protocol):
        _spread(defs, writers, side, root)
    for root in _envelope_models(protocol):
        for side in SIDES:
            _spread(defs, writers, side, root, named=False)
    reached = [d for d in protocol.definitions if d.name in writers and isinstance(d, ir.Model)]
    for base in _unreached_models(protocol.definitions, writers):
        sides = {s for sub in reached if sub is not base and _extends(sub, base, defs) for s in writers[sub.name]}
        for side in sorted(sides):
            _spread(defs, writers, side, base.name)
    return Flow({k: frozenset(v) for k, v in writers.items()})


def _unreached_models(definitions: Iterable[ir.Definition], writers: dict[str, set[ir.Side]]) -> list[ir.Model]:
    return [d for d in definitions if isinstance(d, ir.Model) and d.is_definition and d.fields and d.name not in writers]
