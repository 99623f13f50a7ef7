"""Deprecations: `deprecated: true` and deprecation words in descriptions, reported as their own kind."""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from .rules import COMPATIBLE
from .model import Change
from .rawschema import Node, RawSchema
from .subjects import member

_MARKER = re.compile(r"@deprecated|\bsoft-deprecated\b|\bdeprecated\b", re.IGNORECASE)
_QUOTED = re.compile(r"\"([^\"]+)\"")
_LEVELS = {"soft": 1, "full": 2}


def deprecations(old: RawSchema, new: RawSchema) -> list[Change]:
    """A change for every definition, property or value NEW marks deprecated that OLD did not (or only softly)."""
    before = dict(_marks(old.doc))
    out = []
    for subject, (level, values) in sorted(_marks(new.doc)):
        was = before.get(subject)
        if was is not None and _LEVELS[was[0]] >= _LEVELS[level] and set(values) <= set(was[1]):
            continue
        what = f"values {', '.join(map(json.dumps, values))}" if values else "it"
        word = "soft-deprecated" if level == "soft" else "deprecated"
        escalated = was is not None and _LEVELS[level] > _LEVELS[was[0]]
        detail = f"{what} now {word} (was soft-deprecated)" if escalated else f"{what} {word}"
        kind = "deprecation.escalated" if escalated else "deprecation.added"
        out.append(Change("deprecation", kind, subject, detail, *COMPATIBLE, old=_state(was), new=_state((level, values))))
    return out


def _state(mark: tuple[str, list[Any]] | None) -> Any:
    return None if mark is None else {"level": mark[0], "values": mark[1]}


def _marks(doc: Any) -> list[tuple[str, tuple[str, list[Any]]]]:
    out: list[tuple[str, tuple[str, list[Any]]]] = []
    for key in ("$defs", "definitions"):
        for name, node in (doc.get(key) or {}).items():
            out.extend(_walk(node, name, 0))
    return out


def _walk(node: Node, subject: str, depth: int) -> Iterator[tuple[str, tuple[str, list[Any]]]]:
    if not isinstance(node, dict) or depth > 12:
        return
    mark = _mark(node)
    if mark is not None:
        yield subject, mark
    for wire, prop in (node.get("properties") or {}).items():
        yield from _walk(prop, member(subject, wire), depth + 1)
    if isinstance(node.get("items"), dict):
        yield from _walk(node["items"], subject + "[]", depth + 1)
    for key in ("anyOf", "oneOf", "allOf"):
        for branch in node.get(key, ()):
            yield from _walk(branch, subject, depth + 1)


def _mark(node: dict[str, Any]) -> tuple[str, list[Any]] | None:
    """(`soft` or `full`, the enum values the deprecating sentence names) when the node is deprecated."""
    description = node.get("description")
    text = description if isinstance(description, str) else ""
    found = [m.group(0).lower() for m in _MARKER.finditer(text)]
    if node.get("deprecated") is True:
        found.append("deprecated")
    if not found:
        return None
    level = "full" if any(f != "soft-deprecated" for f in found) else "soft"
    allowed = node.get("enum") or [v for b in node.get("anyOf", ()) if isinstance(b, dict) for v in b.get("enum", [b.get("const")])]
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", text) if _MARKER.search(s)]
    named = [v for s in sentences for v in _QUOTED.findall(_MARKER.split(s.replace("`", ""))[0])]
    values = [v for v in allowed if v in named] if allowed else []
    return level, values
