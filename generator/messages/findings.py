"""What is wrong with a message: the upstream schema's objections, and how the generated package gets it wrong."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

from .pointer import embed, pointer, resolve
from .roundtrip import round_trip
from .targets import Target
from .upstream import Upstream

@dataclass(frozen=True)
class Finding:
    """One objection to a value: the definition checked, where (a JSON pointer into the value) and why."""

    definition: str
    path: str
    message: str
    rejects: bool = False  # mcpgen refuses the value (rather than changing it or typing it wrongly)
    rule: str = "schema"  # which rule it breaks (a `mcpgen tap` summary counts them by rule)

    def __str__(self) -> str:
        return f"{self.definition} at {self.path or '/'}: {self.message}"


def instances(target: Target, value: Any) -> list[tuple[str, str, Any]]:
    """(definition, location, value) of every instance a target selects in a block's value."""
    selected = embed(resolve(value, target.pointer), target.inside)
    found = [(target.definition, f"{target.pointer}/{i}", v) for i, v in enumerate(selected)] if target.each else [(target.definition, target.pointer, selected)]
    if target.envelope is not None:
        found.append((target.envelope, "", value))
    return found


def schema_findings(target: Target, value: Any, schema: Upstream, every: bool = False) -> list[Finding]:
    """The upstream schema's objections to a target's instances: the most relevant of each, or all."""
    out: list[Finding] = []
    for name, where, instance in instances(target, value):
        issues = schema.issues(name, instance) if every else [i for i in [schema.issue(name, instance)] if i is not None]
        out.extend(Finding(name, where + i.path, i.message) for i in issues)
    return out


def _dispatch(target: Target, value: Any, package: ModuleType) -> list[Finding]:
    """Whether the package's method registry types a message as the definition the schema names."""
    methods = package.methods
    call = f"parse_result({target.method!r})" if target.kind == "response" else "parse_message"
    try:
        model = methods.parse_result(target.method, value["result"]) if target.kind == "response" else methods.parse_message(value)
    except methods.ProtocolError as exc:
        errors = "; ".join(f"{pointer(e['loc']) or '/'}: {e['msg']}" for e in exc.data or ())
        return [Finding(target.definition, target.pointer, f"mcpgen's {call} rejects it ({exc.code} {exc.message}{': ' + errors if errors else ''})", True, "mcpgen")]
    if type(model) is not getattr(package.types, target.definition):
        return [Finding(target.definition, target.pointer, f"mcpgen's {call} types it as {type(model).__name__}, the schema as {target.definition}", rule="mcpgen")]
    return []


def mcpgen_findings(target: Target, value: Any, package: ModuleType) -> list[Finding]:
    """How the generated package gets a value wrong: rejects it, changes it, or types it as another definition."""
    out: list[Finding] = []
    for name, where, instance in instances(target, value):
        rt = round_trip(package, name, instance)
        out.extend(Finding(name, where + path, f"mcpgen rejects it: {error}", True, "mcpgen") for path, error in rt.rejected)
        out.extend(Finding(name, where + path, f"mcpgen does not round-trip it: {diff}", rule="mcpgen") for path, diff in rt.diffs)
    if target.method is not None and not out:
        out.extend(_dispatch(target, value, package))
    return out
