"""The verdict on one example block: checked against the upstream schema and through the generated package."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from ..messages.findings import instances, mcpgen_findings, schema_findings
from ..messages.upstream import Upstream
from .classify import Classified

EXACT = "exact"


@dataclass(frozen=True)
class Outcome:
    """The verdict on one block: `exact`, `skipped: …`, `schema-rejects: …`, `unclassified` or a failure."""

    key: str
    definition: str | None
    outcome: str
    failure: bool  # mcpgen got a value the upstream schema accepts wrong

    def as_golden(self) -> dict[str, str]:
        """The block's entry in a golden file."""
        return {"definition": self.definition or "", "outcome": self.outcome}


def check(classified: Classified, key: str, schema: Upstream, package: ModuleType) -> Outcome:
    """Check one classified block against the upstream schema and through the generated package."""
    target = classified.target
    if target is None:
        outcome = f"skipped: {classified.skip}" if classified.skip else "unclassified"
        return Outcome(key, None, outcome, failure=classified.skip is None)
    value = classified.parsed.value
    try:
        instances(target, value)
    except (KeyError, IndexError, TypeError) as exc:
        return Outcome(key, target.definition, f"unclassified: map pointer does not select a value ({exc})", True)
    mcpgen = mcpgen_findings(target, value, package)
    rejected = schema_findings(target, value, schema)
    if rejected:
        also = "mcpgen also rejects it" if any(f.rejects for f in mcpgen) else f"mcpgen: {mcpgen[0] if mcpgen else EXACT}"
        return Outcome(key, target.definition, f"schema-rejects: {rejected[0]} [{also}]", failure=False)
    if mcpgen:
        more = f" (and {len(mcpgen) - 1} more)" if len(mcpgen) > 1 else ""
        return Outcome(key, target.definition, f"FAIL: {mcpgen[0]}{more}", failure=True)
    return Outcome(key, target.definition, EXACT, failure=False)
