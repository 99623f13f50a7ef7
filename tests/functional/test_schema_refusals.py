"""Schemas no working package comes from are refused before anything is generated, in one line that says
why: a bound that is not a number, a `$ref` outside the schema, to nothing, or in a loop of references."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpgen.errors import SchemaError

from .packages import generate_package
from .schemas import Schema, mcp_schema, obj, ref, request, result


def tiny(definitions: Schema) -> Schema:
    """A one-method schema with `definitions` beside it, `Thing` reachable from the method's result."""
    return mcp_schema(
        {
            "GetThingRequest": request("things/get"),
            "GetThingResult": result({"thing": ref("Thing")}),
            **definitions,
        },
        client_requests=["GetThingRequest"],
    )


@pytest.mark.parametrize(
    "definitions, says",
    [
        ({"Thing": {"type": "number", "maximum": float("inf")}}, "a bound of Thing in the schema is inf, not a finite number"),
        ({"Thing": obj({"n": {"type": "number", "exclusiveMinimum": float("nan")}})}, "a bound of Thing.n in the schema is nan"),
        ({"Thing": obj({"x": {"$ref": "other.json#/$defs/X"}})}, "schema reference 'other.json#/$defs/X' is not local"),
        ({"Thing": obj({"x": {"$ref": "https://example.invalid/x.json"}})}, "'https://example.invalid/x.json' is not local"),
        ({"Thing": obj({"x": ref("Nope")})}, "schema reference '#/$defs/Nope' does not resolve"),
        ({"Thing": obj({"x": {"$ref": "#/$defs/GetThingResult/required"}})}, "does not resolve to a schema"),
        ({"Thing": ref("Other"), "Other": ref("Thing")}, "only lead to each other: #/$defs/Thing → #/$defs/Other → #/$defs/Thing"),
        ({"Thing": {"allOf": [ref("Thing"), obj({"a": {"type": "string"}})]}}, "only lead to each other: #/$defs/Thing → #/$defs/Thing"),
        ({"Thing": {"anyOf": [ref("Other")]}, "Other": {"anyOf": [ref("Thing")]}}, "only lead to each other: #/$defs/Thing → #/$defs/Other → #/$defs/Thing"),
        ({"Thing": {"oneOf": [ref("Thing"), {"type": "string"}]}}, "only lead to each other: #/$defs/Thing → #/$defs/Thing"),
    ],
    ids=["infinite-bound", "nan-field-bound", "file-ref", "url-ref", "missing-ref", "ref-to-a-list", "alias-cycle", "allof-cycle", "anyof-cycle", "oneof-cycle"],
)
def test_a_schema_no_working_package_comes_from_is_refused(tmp_path: Path, definitions: Schema, says: str) -> None:
    with pytest.raises(SchemaError) as refused:
        generate_package(tmp_path, tiny(definitions), "fn_refused")
    assert says in str(refused.value) and "\n" not in str(refused.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["schema.json"]


def test_references_that_lead_somewhere_are_generated(tmp_path: Path) -> None:
    """A chain of aliases, a model that refers to itself, a `$ref` named like data inside `const` and a
    percent-encoded reference (a URI fragment: `A%20B` names `A B`) are fine."""
    schema = tiny(
        {
            "Thing": ref("Alias"),
            "Alias": ref("Node"),
            "Node": obj({"next": ref("Node"), "tag": {"const": {"$ref": "not a reference"}}, "label": {"$ref": "#/$defs/A%20B"}}),
            "A B": {"type": "string"},
        }
    )
    pkg = generate_package(tmp_path, schema, "fn_chained")
    node = pkg.types.GetThingResult.model_validate({"thing": {"next": {"next": {}}, "label": "x"}}).thing
    assert node is not None and node.next is not None and node.next.next is not None and node.label == "x"
    with pytest.raises(ValueError):
        pkg.types.GetThingResult.model_validate({"thing": {"label": 1}})
