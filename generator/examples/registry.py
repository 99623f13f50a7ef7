"""Compare a generated package's method registry (`methods.METHODS`) with the upstream method table."""

from __future__ import annotations

from types import ModuleType, UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from .verdicts import EXACT, Outcome
from ..messages.table import Method, MethodTable

KEY_PREFIX = "methods/"


def _members(annotation: Any) -> set[Any]:
    """The types a (possibly annotated) union annotation stands for; none for None."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _members(get_args(annotation)[0])
    if origin is Union or origin is UnionType:
        return {t for arg in get_args(annotation) for t in _members(arg)}
    return set() if annotation is None else {annotation}


def _names(types: set[Any]) -> str:
    return " | ".join(sorted(getattr(t, "__name__", repr(t)) for t in types)) or "nothing"


def _differences(want: Method, got: Any, types: ModuleType) -> list[str]:
    """How mcpgen's registry entry of a method differs from the schema's, one phrase each."""
    out = [
        f"{field} is {g!r}, the schema says {w!r}"
        for field, w, g in [
            ("kind", want.kind, got.kind),
            ("senders", sorted(want.senders), sorted(got.senders)),
            ("embedded", want.embedded, got.embedded),
        ]
        if w != g
    ]
    if got.message is not getattr(types, want.message, None):
        out.append(f"message is {_names({got.message})}, the schema says {want.message}")
    results = [getattr(types, r, None) for r in want.results]
    if results[:1] != ([got.result] if got.result is not None else []):
        out.append(f"result is {_names({got.result} - {None})}, the schema says {want.results[0] if want.results else 'nothing'}")
    if set(results) != _members(got.result_type):
        out.append(f"result type is {_names(_members(got.result_type))}, the schema says {' | '.join(sorted(want.results)) or 'nothing'}")
    return out


def registry_outcomes(table: MethodTable, package: ModuleType) -> list[Outcome]:
    """One outcome per method of the schema or of the package: `exact`, or a FAIL naming each difference."""
    registry = package.methods.METHODS
    out = []
    for name, want in table.methods.items():
        got = registry.get(name)
        wrong = ["mcpgen has no such method"] if got is None else _differences(want, got, package.types)
        outcome = f"FAIL: {'; '.join(wrong)}" if wrong else EXACT
        out.append(Outcome(KEY_PREFIX + name, want.message, outcome, failure=bool(wrong)))
    for name in sorted(registry.keys() - table.methods.keys()):
        out.append(Outcome(KEY_PREFIX + name, None, "FAIL: mcpgen has a method the schema does not define", failure=True))
    return out
