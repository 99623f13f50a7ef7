"""The corrected schema JSON beside its IR: `$ref` resolution and the raw node of every IR definition."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

import jsonpointer

from ...model import ir
from ...model.shapes import ANNOTATIONS

Node = Any  # a JSON Schema node: a dict, or a boolean schema
_MAX_REFS = 32


@dataclass
class RawSchema:
    """One revision's corrected schema document and the raw node behind each IR definition name."""

    doc: Mapping[str, Any]
    nodes: dict[str, Node] = field(default_factory=dict)

    def resolve(self, node: Node) -> Node:
        """`node` with local `$ref`s followed (siblings of a `$ref` other than annotations are kept)."""
        for _ in range(_MAX_REFS):
            if not isinstance(node, dict) or not isinstance(node.get("$ref"), str):
                return node
            target = self.pointer(node["$ref"])
            rest = {k: v for k, v in node.items() if k != "$ref" and k not in ANNOTATIONS}
            if target is None:
                return rest or True
            node = {**target, **rest} if rest and isinstance(target, dict) else target
        return node

    def pointer(self, ref: str) -> Node | None:
        """The node a local reference (`#/$defs/X`) names, else None."""
        if not ref.startswith("#"):
            return None
        try:
            return jsonpointer.resolve_pointer(self.doc, ref[1:])
        except jsonpointer.JsonPointerException:
            return None

    def prop(self, owner: str, wire: str) -> Node | None:
        """The raw node of property `wire` of the IR model `owner` (looking through `allOf`)."""
        node = self.nodes.get(owner)
        return None if node is None else find_property(self, node, wire)

    def extra(self, owner: str) -> Node | None:
        """The explicit `additionalProperties` of the IR model `owner`, None when the schema leaves it out."""
        node = self.nodes.get(owner)
        return None if node is None else explicit_extra(self, node)




def object_parts(raw: RawSchema, node: Node, depth: int = 0) -> Iterator[dict[str, Any]]:
    """`node` and every `allOf` member it includes, resolved: the parts whose properties an object has."""
    node = raw.resolve(node)
    if not isinstance(node, dict) or depth > 8:
        return
    yield node
    for member in node.get("allOf", ()):
        yield from object_parts(raw, member, depth + 1)


def find_property(raw: RawSchema, node: Node, wire: str) -> Node | None:
    """The schema of property `wire` declared by `node` or its `allOf` parts."""
    for part in object_parts(raw, node):
        props = part.get("properties")
        if isinstance(props, dict) and wire in props:
            return props[wire]
    return None


def explicit_extra(raw: RawSchema, node: Node) -> Node | None:
    """`additionalProperties` as the schema spells it out (None when left to the default)."""
    for part in object_parts(raw, node):
        if "additionalProperties" in part:
            return part["additionalProperties"]
    return None


def index_schema(protocol: ir.Protocol, doc: Mapping[str, Any]) -> RawSchema:
    """Map every IR definition, hoisted inline objects included, to its node in `doc`."""
    raw = RawSchema(doc)
    defs = {d.name: d for d in protocol.definitions}
    for d in protocol.definitions:
        if d.is_definition and d.pointer.startswith("#/"):
            node = raw.pointer(d.pointer)
            if node is not None:
                raw.nodes[d.name] = node
    changed = True
    while changed:
        before = len(raw.nodes)
        for d in protocol.definitions:
            node = raw.nodes.get(d.name)
            if node is None:
                continue
            if isinstance(d, ir.Alias):
                _walk(raw, defs, d.type, node)
                continue
            for f in d.fields:
                prop = find_property(raw, node, f.wire_name)
                if prop is not None:
                    _walk(raw, defs, f.type, prop)
            extra = explicit_extra(raw, node)
            if extra is not None:
                _walk(raw, defs, d.extra, extra)
        changed = len(raw.nodes) > before
    return raw


def _walk(raw: RawSchema, defs: dict[str, ir.Definition], t: ir.TypeExpr, node: Node) -> None:
    """Follow an IR type and its raw node in step, naming the nodes of hoisted inline definitions."""
    if isinstance(node, dict) and "$ref" in node:
        return  # a named definition: indexed from its own pointer
    node = raw.resolve(node)
    if not isinstance(node, dict):
        return
    if isinstance(t, ir.Ref):
        d = defs.get(t.name)
        if d is not None and not d.is_definition:
            raw.nodes.setdefault(t.name, node)
        return
    if isinstance(t, ir.ListOf) and "items" in node:
        _walk(raw, defs, t.item, node["items"])
    elif isinstance(t, ir.DictOf) and "additionalProperties" in node:
        _walk(raw, defs, t.value, node["additionalProperties"])
    elif isinstance(t, ir.UnionOf):
        structured = [m for m in t.members if not isinstance(m, (ir.Primitive, ir.LiteralOf))]
        branches = [m for m in node.get("anyOf") or node.get("oneOf") or () if not _scalar(raw.resolve(m))]
        if len(structured) == len(branches):
            for member, branch in zip(structured, branches):
                _walk(raw, defs, member, branch)
        elif len(structured) == 1:
            _walk(raw, defs, structured[0], node)


def _scalar(node: Node) -> bool:
    if not isinstance(node, dict):
        return False
    kinds = node.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    scalars = ("string", "integer", "number", "boolean", "null")
    return "$ref" not in node and ("const" in node or "enum" in node or all(k in scalars for k in kinds))
