"""A conversion plan: how a message part is converted to one revision, worked out once per revision,
method and part (`Revision.plan`) and followed by `convert`."""

from __future__ import annotations

from typing import Any, Callable, Iterable, NamedTuple

FillRule = tuple[tuple[str, ...], str, Any]
"""(path to the object, wire key, value) of one required field to fill in."""


class Prune(NamedTuple):
    """Wire keys left out below the top level, as a tree walked once: the keys taken out of the object
    at this level, then the tree of each member below it (`*`: every item of a list or value of an
    object)."""

    keys: frozenset[str]
    below: tuple[tuple[str, Prune], ...]


def pruning(unfills: Iterable[tuple[tuple[str, ...], str]]) -> Prune | None:
    """The tree of (path, wire key) pairs, the members below each level in the order first named (None
    for no pairs)."""
    keys: set[str] = set()
    below: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for path, key in unfills:
        if path:
            below.setdefault(path[0], []).append((path[1:], key))
        else:
            keys.add(key)
    if not keys and not below:
        return None
    subtrees = ((head, pruning(rest)) for head, rest in below.items())
    return Prune(
        frozenset(keys), tuple((head, tree) for head, tree in subtrees if tree is not None)
    )


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
    unfills: Prune | None = None
    """The fields left out below the top level."""
    prune: Callable[[Any], None] | None = None
    """The walk taking `unfills` out of a value in place (`convert.pruner` of the tree)."""
    reshapes: bool = False
    """Whether anything is left out or filled in (else the value is validated as it is)."""
