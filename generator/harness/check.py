"""Check classified blocks: upstream schema verdict first, then the exact round trip."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

from .classify import Classified, Target
from .roundtrip import RoundTrip, round_trip
from .upstream import Upstream

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


def _resolve(value: Any, pointer: str) -> Any:
    for part in [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]:
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def _embed(value: Any, pointer: str) -> Any:
    for part in reversed([p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]):
        value = {part: value}
    return value


def instances(target: Target, value: Any) -> list[tuple[str, str, Any]]:
    """(definition, location, value) of every instance a target selects in a block's value."""
    selected = _embed(_resolve(value, target.pointer), target.inside)
    found = [(target.definition, f"{target.pointer}/{i}", v) for i, v in enumerate(selected)] if target.each else [(target.definition, target.pointer, selected)]
    if target.envelope is not None:
        found.append((target.envelope, "", value))
    return found


def check(classified: Classified, key: str, schema: Upstream, package: ModuleType) -> Outcome:
    """Check one classified block against the upstream schema and through the generated package."""
    target = classified.target
    if target is None:
        outcome = f"skipped: {classified.skip}" if classified.skip else "unclassified"
        return Outcome(key, None, outcome, failure=classified.skip is None)
    try:
        found = instances(target, classified.parsed.value)
    except (KeyError, IndexError, TypeError) as exc:
        return Outcome(key, target.definition, f"unclassified: map pointer does not select a value ({exc})", True)
    trips = [(name, where, round_trip(package, name, value)) for name, where, value in found]
    mcpgen = next((f"{verdict(rt)} ({name} at {where or '/'}): {rt.rejected or '; '.join(rt.diffs)}" for name, where, rt in trips if not rt.exact), None)
    for name, where, value in found:
        issue = schema.issue(name, value)
        if issue is not None:
            at = f"{where}{issue.path}" or "/"
            also = "mcpgen also rejects it" if mcpgen and mcpgen.startswith("rejects") else f"mcpgen: {mcpgen or 'exact'}"
            return Outcome(key, target.definition, f"schema-rejects: {name} at {at}: {issue.message} [{also}]", failure=False)
    if mcpgen is not None:
        return Outcome(key, target.definition, f"FAIL: mcpgen {mcpgen}", failure=True)
    return Outcome(key, target.definition, EXACT, failure=False)


def verdict(rt: RoundTrip) -> str:
    """`rejects` or `not exact` for a failed round trip."""
    return "rejects" if rt.rejected is not None else "not exact"
