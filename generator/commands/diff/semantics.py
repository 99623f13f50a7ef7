"""Which instances a schema accepts: prove that one schema accepts every instance another accepts.

`Inclusion(wide, narrow).covers(a, b)` is True only when it can show that every instance `b` (a node
of `narrow`) accepts is accepted by `a` (a node of `wide`); an unknown keyword or an unprovable case
gives False. Objects follow the diff's model of peers: a writer puts only the properties its schema
declares, and a reader ignores undeclared ones, unless the schema spells out `additionalProperties`.
Finite sets (`const`, `enum`) are decided exactly by validating each value with jsonschema.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal

import jsonschema

from ...model.shapes import ANNOTATIONS
from .rawschema import Node, RawSchema, explicit_extra, object_parts

Verdict = Literal["same", "widened", "narrowed", "changed"]
JSON_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
_UNION = ("anyOf", "oneOf")
# Keywords `covers` understands; any other keyword on the wider side makes it give up.
_KNOWN = ANNOTATIONS | {
    "$ref", "type", "const", "enum", "anyOf", "oneOf", "allOf", "properties", "required",
    "additionalProperties", "items", "minItems", "maxItems", "uniqueItems", "minLength", "maxLength",
    "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minProperties", "maxProperties", "$defs", "definitions",
}
_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
_MAX_DEPTH = 64
CONSTRAINTS = _LOWER + _UPPER + ("multipleOf", "pattern", "format", "uniqueItems")


def verdict(old: RawSchema, new: RawSchema, o: Node, n: Node) -> Verdict | None:
    """`same`, `widened`, `narrowed` or `changed` for a position typed `o` in OLD and `n` in NEW; None if unprovable."""
    wider = Inclusion(new, old).covers(n, o)
    narrower = Inclusion(old, new).covers(o, n)
    if wider and narrower:
        return "same"
    if wider:
        return "widened"
    if narrower:
        return "narrowed"
    return None


def types_of(node: Node) -> set[str]:
    """The JSON types a (resolved) node admits by its `type`, `const` or `enum` alone."""
    if node is False:
        return set()
    if not isinstance(node, dict):
        return set(JSON_TYPES)
    if "const" in node:
        return {_type_of(node["const"])}
    if isinstance(node.get("enum"), list):
        return {_type_of(v) for v in node["enum"]}
    t = node.get("type")
    if t is None:
        return set(JSON_TYPES)
    kinds = set(t) if isinstance(t, list) else {t}
    return kinds | ({"integer"} if "number" in kinds else set())


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _values(node: Node) -> list[Any] | None:
    """The finite set of instances a node allows, when it has one."""
    if not isinstance(node, dict):
        return None
    if "const" in node:
        return [node["const"]]
    if isinstance(node.get("enum"), list):
        return list(node["enum"])
    t = node.get("type")
    if t == "null":
        return [None]
    if t == "boolean" and not (set(node) - ANNOTATIONS - {"type"}):
        return [True, False]
    return None


@dataclass
class Inclusion:
    """Proofs that nodes of `wide` accept every instance that nodes of `narrow` accept."""

    wide: RawSchema
    narrow: RawSchema
    assumed: set[tuple[int, int]] = field(default_factory=set)
    validators: dict[str, Any] = field(default_factory=dict)

    def covers(self, a: Node, b: Node) -> bool:
        """True when every instance `b` accepts, `a` accepts too (recursive definitions assumed to hold)."""
        key = (id(a), id(b))
        if key in self.assumed:
            return True
        if len(self.assumed) > _MAX_DEPTH:
            return False
        self.assumed.add(key)
        try:
            return self._covers(self.wide.resolve(a), self.narrow.resolve(b))
        finally:
            self.assumed.discard(key)

    def _covers(self, a: Node, b: Node) -> bool:
        if b is False or a is True or (isinstance(a, dict) and not set(a) - ANNOTATIONS):
            return True
        if a is False or not isinstance(a, dict):
            return False
        values = _values(b)
        if values is not None:
            return all(self.accepts(a, v) for v in values)
        if b is True or (isinstance(b, dict) and not set(b) - ANNOTATIONS):
            b = {}
        if any(k in b for k in _UNION):
            return all(self.covers(a, m) for m in _branches(b))
        kinds = types_of(b) - ({"integer"} if "number" in types_of(b) else set())
        if len(kinds) != 1:
            return all(self.covers(a, _only(b, k)) for k in sorted(kinds))
        if any(k in a for k in _UNION):
            return any(self.covers(m, b) for m in _branches(a))
        if set(a) - _KNOWN:
            return False
        kind = kinds.pop()
        if "allOf" in a and kind != "object":
            return False
        if kind not in types_of(a) or "const" in a or "enum" in a:
            return False
        return _bounds(a, b) and self._by_kind(kind, a, b)

    def _by_kind(self, kind: str, a: dict[str, Any], b: dict[str, Any]) -> bool:
        if kind == "string":
            return all(k not in a or a[k] == b.get(k) for k in ("pattern", "format"))
        if kind in ("integer", "number"):
            return _multiple(a, b, kind)
        if kind == "array":
            return (not a.get("uniqueItems") or bool(b.get("uniqueItems"))) and self.covers(a.get("items", True), b.get("items", True))
        if kind == "object":
            return self._objects(a, b)
        return True

    def _objects(self, a: dict[str, Any], b: dict[str, Any]) -> bool:
        a_props, a_required = _declared(self.wide, a)
        b_props, b_required = _declared(self.narrow, b)
        if not a_required <= b_required:
            return False
        a_extra = explicit_extra(self.wide, a)
        b_extra = explicit_extra(self.narrow, b)
        for name, schema in b_props.items():
            target = a_props.get(name, a_extra)
            if target is not None and not self.covers(target, schema):
                return False
        if b_extra is not None and b_extra is not False:
            for name, schema in a_props.items():
                if name not in b_props and not self.covers(schema, b_extra):
                    return False
            if a_extra is not None and not self.covers(a_extra, b_extra):
                return False
        return True

    def accepts(self, a: Node, value: Any) -> bool:
        """True when `value` is valid against node `a` of the wide document (jsonschema decides)."""
        key = json.dumps(a, sort_keys=True)
        validator = self.validators.get(key)
        if validator is None:
            doc = self.wide.doc
            root = {k: doc[k] for k in ("$defs", "definitions", "$schema") if k in doc}
            schema = {**root, **a} if isinstance(a, dict) else a
            validator = jsonschema.validators.validator_for(doc)(schema)
            self.validators[key] = validator
        return bool(validator.is_valid(value))


def _branches(node: dict[str, Any]) -> Iterable[Node]:
    """The members of a union node, each with the keywords the union node itself adds."""
    rest = {k: v for k, v in node.items() if k not in _UNION and k not in ANNOTATIONS}
    for key in _UNION:
        for member in node.get(key, ()):
            yield {"allOf": [member], **rest} if rest else member


def _only(node: dict[str, Any], kind: str) -> dict[str, Any]:
    """`node` restricted to one JSON type (a `true` schema's object and array parts stay open)."""
    out = {**node, "type": kind}
    if kind == "object" and "properties" not in node:
        out.setdefault("additionalProperties", True)
    if kind == "array":
        out.setdefault("items", True)
    return out


def _declared(raw: RawSchema, node: dict[str, Any]) -> tuple[dict[str, Node], set[str]]:
    props: dict[str, Node] = {}
    required: set[str] = set()
    for part in object_parts(raw, node):
        for name, schema in (part.get("properties") or {}).items():
            props.setdefault(name, schema)
        required |= set(part.get("required") or ())
    return props, required


def _bounds(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """`b`'s numeric and size bounds lie within `a`'s."""
    for low in _LOWER:
        if low in a and not _at_least(b, low, a[low]):
            return False
    for high in _UPPER:
        if high in a and not _at_most(b, high, a[high]):
            return False
    return True


def _at_least(b: dict[str, Any], key: str, bound: float) -> bool:
    if key == "minimum":
        return ("minimum" in b and b["minimum"] >= bound) or ("exclusiveMinimum" in b and b["exclusiveMinimum"] >= bound)
    if key == "exclusiveMinimum":
        return ("exclusiveMinimum" in b and b["exclusiveMinimum"] >= bound) or ("minimum" in b and b["minimum"] > bound)
    return bool(b.get(key, 0) >= bound)


def _at_most(b: dict[str, Any], key: str, bound: float) -> bool:
    if key == "maximum":
        return ("maximum" in b and b["maximum"] <= bound) or ("exclusiveMaximum" in b and b["exclusiveMaximum"] <= bound)
    if key == "exclusiveMaximum":
        return ("exclusiveMaximum" in b and b["exclusiveMaximum"] <= bound) or ("maximum" in b and b["maximum"] < bound)
    return key in b and b[key] <= bound


def _multiple(a: dict[str, Any], b: dict[str, Any], kind: str) -> bool:
    """Every number `b` allows is of `a`'s type and a multiple of `a`'s `multipleOf`."""
    step = b.get("multipleOf")
    if "integer" in types_of(a) and "number" not in types_of(a) and kind == "number":
        if step is None or not float(step).is_integer():
            return False
    if "multipleOf" not in a:
        return True
    if step is None and kind == "integer":
        step = 1
    if step is None:
        return False
    ratio = step / a["multipleOf"]
    return math.isclose(ratio, round(ratio)) and round(ratio) >= 1
