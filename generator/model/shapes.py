"""The shape of a JSON Schema node: what it says about values, its annotations left out."""

from __future__ import annotations

from typing import Any

ANNOTATIONS = frozenset({
    "description", "title", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly",
    "$schema", "$id", "markdownDescription",
})
"""Keywords that say nothing about which values a schema accepts."""
SCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas", "$defs", "definitions")
"""Keywords whose value maps names to schemas."""
_SUBSCHEMAS = (
    "items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else",
    "unevaluatedProperties", "unevaluatedItems", "additionalItems",
)


def shape(node: Any) -> Any:
    """A schema node as a JSON value without its annotations (descriptions, titles, …): what it accepts, as
    reports show it and as copies of one definition are compared."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ANNOTATIONS:
            continue
        if key in SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: shape(v) for name, v in value.items()}
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(value, list):
            out[key] = [shape(v) for v in value]
        elif key in _SUBSCHEMAS:
            out[key] = shape(value)
        else:
            out[key] = value
    return out
