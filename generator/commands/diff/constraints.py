"""Constraint keywords (`maxItems`, `minimum`, `pattern`, `format`, …) that differ at one position."""

from __future__ import annotations

import json
from typing import Any, Iterator

from .rawschema import Node
from .semantics import CONSTRAINTS


def constraint_notes(o: Node, n: Node) -> list[str]:
    """`maxItems: none → 100` for each constraint keyword that differs at this position.

    Named definitions and objects with declared properties are compared on their own, so the walk
    stops at `$ref`s and at `properties`; it looks into array items, map values and union members.
    """
    before = dict(_constraints(o, ""))
    after = dict(_constraints(n, ""))
    notes = []
    for key in sorted(set(before) | set(after)):
        a, b = before.get(key), after.get(key)
        if a != b:
            notes.append(f"{key}: {_show(a)} → {_show(b)}")
    return notes


def _constraints(node: Node, where: str) -> Iterator[tuple[str, Any]]:
    if not isinstance(node, dict) or "$ref" in node:
        return
    for keyword in CONSTRAINTS:
        if keyword in node:
            yield where + keyword, node[keyword]
    if isinstance(node.get("items"), dict):
        yield from _constraints(node["items"], where + "items.")
    if isinstance(node.get("additionalProperties"), dict) and "properties" not in node:
        yield from _constraints(node["additionalProperties"], where + "values.")
    for key in ("anyOf", "oneOf"):
        for i, member in enumerate(node.get(key, ())):
            yield from _constraints(member, f"{where}{key}[{i}].")


def _show(value: Any) -> str:
    return "none" if value is None else json.dumps(value)
