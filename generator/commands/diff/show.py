"""Short, stable text for IR type expressions, as the reports print them."""

from __future__ import annotations

import json

from ...model import ir


def show(t: ir.TypeExpr | None) -> str:
    """`list[ContentBlock]`, `'a' | 'b'`, `string | null`, `any`."""
    if t is None:
        return "none"
    if isinstance(t, ir.AnyType):
        return "any"
    if isinstance(t, ir.Primitive):
        return t.name
    if isinstance(t, ir.Ref):
        return t.name
    if isinstance(t, ir.LiteralOf):
        return " | ".join(json.dumps(v) for v in t.values) if t.values else "never"
    if isinstance(t, ir.ListOf):
        return f"list[{show(t.item)}]"
    if isinstance(t, ir.DictOf):
        return f"dict[{show(t.value)}]"
    return " | ".join(_grouped(m) for m in ir.alternatives(t))


def _grouped(t: ir.TypeExpr) -> str:
    text = show(t)
    return f"({text})" if isinstance(t, ir.UnionOf) or (isinstance(t, ir.LiteralOf) and len(t.values) > 1) else text
