"""A conversion plan: how a message part is converted to one revision, worked out once per revision,
method and part (`Revision.plan`) and followed by `convert`."""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

FillRule = tuple[tuple[str, ...], str, Any]
"""(path to the object, wire key, value) of one required field to fill in."""


class Plan(NamedTuple):
    """How a message part is converted to one revision: its validator, what is left out and filled
    in, and its name in warnings and errors (worked out once per revision, method and part)."""

    validate: Callable[[Any], Any]
    version: str
    what: str
    strip: frozenset[str]
    fills: tuple[FillRule, ...]
    deep: bool = False
    """Whether a fill or a strip goes below the top level (so a value not our own is copied whole first)."""
    unfills: tuple[tuple[tuple[str, ...], str], ...] = ()
    """(path, wire key) of each field left out below the top level."""
