"""Changes that are one change to the program that meets them, folded into one item.

A method that moved (into `InputRequiredResult.inputRequests`, or back) is one item: its other method
changes are named in its detail. An optional object that became required together with new required
keys inside it, at the same places and with the same verdicts, is one item: a writer must now send
the object with those keys.
"""

from __future__ import annotations

import dataclasses
import json
import re

from .grouping import owner_and_rest
from .model import Change, Impact

_MEMBER = re.compile(r'\.([A-Za-z_$][A-Za-z0-9_$]*)|\[("(?:[^"\\]|\\.)*")\]')
_ADDED = "new required field: "
Places = tuple[str, frozenset[str]]


def fold(changes: list[Change]) -> list[Change]:
    """`changes` with each moved method's changes and each newly required object's new keys folded in."""
    return _fold_required_keys(_fold_moved_methods(changes))


def _fold_moved_methods(changes: list[Change]) -> list[Change]:
    moved = {c.subject: c for c in changes if c.kind == "method.moved"}
    folded: dict[str, list[Change]] = {}
    kept = []
    for c in changes:
        if c.category == "method" and c.subject in moved and c is not moved[c.subject]:
            folded.setdefault(c.subject, []).append(c)
        else:
            kept.append(c)
    out = []
    for c in kept:
        others = sorted(folded.get(c.subject, []), key=Change.sort_key) if c.kind == "method.moved" else []
        out.append(_merged(c, others, "; ".join([c.detail, *(o.detail for o in others)])) if others else c)
    return out


def _fold_required_keys(changes: list[Change]) -> list[Change]:
    parents = {_places(c.subject, c.where): c for c in changes if c.kind == "field.now_required" and not c.cosmetic}
    keys: dict[int, list[tuple[str, Change]]] = {}
    kept = []
    for c in changes:
        found = _parent_and_key(c, parents)
        if found is None:
            kept.append(c)
        else:
            keys.setdefault(id(found[0]), []).append((found[1], c))
    out = []
    for c in kept:
        members = sorted(keys.get(id(c), []), key=lambda item: item[0])
        if not members:
            out.append(c)
            continue
        listed = ", ".join(f"{json.dumps(key)} ({child.detail[len(_ADDED):]})" for key, child in members)
        detail = f"{c.detail}, with new required key{'s' if len(members) > 1 else ''}: {listed}"
        merged = _merged(c, [child for _, child in members], detail)
        out.append(dataclasses.replace(merged, new={key: child.new for key, child in members}))
    return out


def _parent_and_key(child: Change, parents: dict[Places, Change]) -> tuple[Change, str] | None:
    """The `field.now_required` item a new required field sits directly below, at every one of its
    places and with the same verdicts, and the field's key; None for any other change."""
    if child.kind != "field.added.required" or child.cosmetic or not child.detail.startswith(_ADDED):
        return None
    _, rest = owner_and_rest(child.subject)
    last = [m for m in _MEMBER.finditer(rest)][-1:]
    if not last or last[0].end() != len(rest):
        return None
    places = _places(child.subject, child.where)
    parent = parents.get((rest[: last[0].start()], places[1]))
    if parent is None or (parent.client, parent.server) != (child.client, child.server):
        return None
    name = last[0].group(1)
    return parent, name if name is not None else json.loads(last[0].group(2))


def _places(subject: str, where: tuple[str, ...]) -> Places:
    """The path below the definitions of an item, and the definitions it sits in."""
    return owner_and_rest(subject)[1], frozenset(owner_and_rest(p)[0] for p in (subject, *where))


def _merged(into: Change, others: list[Change], detail: str) -> Change:
    """`into` with `detail`, breaking every side that it or any of `others` breaks."""
    group = [into, *others]

    def worst(impacts: list[Impact]) -> Impact:
        return "breaking" if "breaking" in impacts else "compatible"

    return dataclasses.replace(
        into, detail=detail, client=worst([c.client for c in group]), server=worst([c.server for c in group])
    )
