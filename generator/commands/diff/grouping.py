"""One change of a shared shape (the same `_meta` key added to seven params objects) as one item."""

from __future__ import annotations

import json
import re
from typing import Callable, Iterable

from .model import Change

_OWNER = re.compile(r"[^.\[]+")


def owner_and_rest(subject: str) -> tuple[str, str]:
    """`RequestParams._meta` → (`RequestParams`, `._meta`)."""
    m = _OWNER.match(subject)
    owner = m.group(0) if m else subject
    return owner, subject[len(owner):]


def group_shared(changes: Iterable[Change], size: Callable[[str], int]) -> list[Change]:
    """Merge changes that differ only in the definition they sit in; the item lists the others in `where`.

    Changes group when kind, the path below the definition, detail, old and new values and both
    verdicts are equal, so a grouped item's verdict holds at every place it lists. The subject is
    the place in the definition with the fewest properties (`size`): the base the others extend.
    """
    groups: dict[str, list[Change]] = {}
    out: list[Change] = []
    for c in changes:
        owner, rest = owner_and_rest(c.subject)
        if not rest or c.category not in ("field", "capability"):
            out.append(c)
            continue
        key = json.dumps([c.category, c.kind, rest, c.detail, c.old, c.new, c.client, c.server, c.cosmetic],
                         sort_keys=True, default=str)
        groups.setdefault(key, []).append(c)
    for members in groups.values():
        members.sort(key=lambda c: (size(owner_and_rest(c.subject)[0]), c.subject))
        first = members[0]
        where = tuple(sorted(c.subject for c in members[1:]))
        out.append(Change(first.category, first.kind, first.subject, first.detail, first.client, first.server,
                          first.old, first.new, first.direction, first.cosmetic, where))
    return out
