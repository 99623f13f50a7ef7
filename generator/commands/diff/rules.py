"""The rules: which change breaks the writer or the reader of a value, and a client or a server."""

from __future__ import annotations

from typing import Iterable, Literal

from ...model import ir
from .model import Impact

Role = Literal["writer", "reader"]

# Change kind → the roles it breaks, for values one side writes and its peer reads.
# A program written against OLD meets a peer speaking NEW: as a writer it still produces OLD
# values that the peer validates against NEW; as a reader it parses NEW values with OLD types.
VALUE_RULES: dict[str, frozenset[Role]] = {
    "field.added.required": frozenset({"writer"}),
    "field.added.optional": frozenset(),
    "field.removed.required": frozenset({"reader"}),
    "field.removed.optional": frozenset(),
    "field.now_required": frozenset({"writer"}),
    "field.now_optional": frozenset({"reader"}),
    "type.widened": frozenset({"reader"}),
    "type.narrowed": frozenset({"writer"}),
    "type.changed": frozenset({"writer", "reader"}),
    "definition.kind_changed": frozenset({"writer", "reader"}),
    "capability.added": frozenset(),
    "capability.removed": frozenset({"reader"}),
}

_VERDICTS = ("widened", "narrowed", "changed")

# Every rule id a change may have (what `--ignore` entries match).
RULE_IDS = frozenset(
    {
        *VALUE_RULES,
        *(f"constraint.{verdict}" for verdict in _VERDICTS),
        *(f"method.result_{verdict}" for verdict in _VERDICTS),
        "description.changed",
        "definition.added",
        "definition.removed",
        "definition.renamed",
        "definition.extracted",
        "definition.inlined",
        "deprecation.added",
        "deprecation.escalated",
        "method.added",
        "method.removed",
        "method.kind_changed",
        "method.moved",
        "method.sender_added",
        "method.sender_removed",
        "method.result_opt_in_added",
        "method.result_opt_in_removed",
        "envelope.batching_added",
        "envelope.batching_removed",
        "envelope.renamed",
        "envelope.fields_declared",
        "envelope.fields_undeclared",
    }
)


def value_impact(
    rule: frozenset[Role], writers: frozenset[ir.Side], readers: frozenset[ir.Side]
) -> tuple[Impact, Impact]:
    """(client, server) impact of a value change that breaks the roles in `rule`."""

    def hit(side: ir.Side) -> Impact:
        broken = ("writer" in rule and side in writers) or ("reader" in rule and side in readers)
        return "breaking" if broken else "compatible"

    return hit("client"), hit("server")


def sides_impact(broken: Iterable[ir.Side]) -> tuple[Impact, Impact]:
    """(client, server) impact when exactly the sides in `broken` break."""
    b = set(broken)
    return ("breaking" if "client" in b else "compatible", "breaking" if "server" in b else "compatible")


COMPATIBLE: tuple[Impact, Impact] = ("compatible", "compatible")
BOTH_BREAK: tuple[Impact, Impact] = ("breaking", "breaking")
