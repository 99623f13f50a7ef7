"""Pair definitions that only changed their name: same shape, new name."""

from __future__ import annotations

from typing import Iterable

from ...model import ir

_MAX_DEPTH = 6


def shape(d: ir.Definition, defs: dict[str, ir.Definition], names: dict[str, str]) -> str:
    """A canonical text of a definition's wire shape; `names` maps referenced names first."""
    return _shape_def(d, defs, names, 0)


def _shape_def(d: ir.Definition, defs: dict[str, ir.Definition], names: dict[str, str], depth: int) -> str:
    if isinstance(d, ir.Alias):
        return "alias:" + _shape(d.type, defs, names, depth)
    fields = sorted(
        f"{f.wire_name}{'!' if f.required else '?'}:{_shape(f.type, defs, names, depth)}" for f in d.fields
    )
    extra = _shape(d.extra, defs, names, depth)
    return "{" + ",".join(fields) + ";" + extra + "}"


def _shape(t: ir.TypeExpr, defs: dict[str, ir.Definition], names: dict[str, str], depth: int) -> str:
    if isinstance(t, ir.Ref):
        d = defs.get(t.name)
        if d is not None and not d.is_definition and depth < _MAX_DEPTH:
            return _shape_def(d, defs, names, depth + 1)
        return "@" + names.get(t.name, t.name)
    if isinstance(t, ir.ListOf):
        return "[" + _shape(t.item, defs, names, depth) + "]"
    if isinstance(t, ir.DictOf):
        return "<" + _shape(t.value, defs, names, depth) + ">"
    if isinstance(t, ir.UnionOf):
        return "(" + "|".join(sorted(_shape(m, defs, names, depth) for m in ir.alternatives(t))) + ")"
    if isinstance(t, ir.LiteralOf):
        return "=" + repr(sorted(map(repr, t.values)))
    if isinstance(t, ir.Primitive):
        return t.name
    return "any"


def _trivial(d: ir.Definition) -> bool:
    """Shapes too common to identify a definition: bare scalars and empty objects."""
    if isinstance(d, ir.Alias):
        return isinstance(d.type, (ir.Primitive, ir.AnyType))
    return len(d.fields) < 2


def find_renames(
    old: ir.Protocol, new: ir.Protocol, seeds: dict[str, str], skip: Iterable[str] = ()
) -> dict[str, str]:
    """OLD name → NEW name for definitions gone from NEW whose exact shape appears once under a new name."""
    odefs = {d.name: d for d in old.definitions}
    ndefs = {d.name: d for d in new.definitions}
    renames = dict(seeds)
    skipped = set(skip)
    gone = [
        d for d in old.definitions
        if d.is_definition and d.name not in ndefs and d.name not in renames and d.name not in skipped
    ]
    taken = set(renames.values())
    fresh = [
        d for d in new.definitions
        if d.is_definition and d.name not in odefs and d.name not in taken and d.name not in skipped
    ]
    changed = True
    while changed:  # a rename can make the shapes of the definitions that mention it equal
        changed = False
        new_shapes: dict[str, list[str]] = {}
        for d in fresh:
            if d.name not in taken and not _trivial(d):
                new_shapes.setdefault(shape(d, ndefs, {}), []).append(d.name)
        old_shapes: dict[str, list[str]] = {}
        for d in gone:
            if d.name not in renames and not _trivial(d):
                old_shapes.setdefault(shape(d, odefs, renames), []).append(d.name)
        for key, olds in old_shapes.items():
            news = new_shapes.get(key, [])
            if len(olds) == 1 and len(news) == 1:
                renames[olds[0]] = news[0]
                taken.add(news[0])
                changed = True
    return renames
