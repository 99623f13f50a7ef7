"""Recursion: self- and mutually recursive models, recursive type aliases, aliases that name later aliases."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from .oracle import assert_agrees, text
from .packages import generate_package
from .schemas import Schema, mcp_schema, obj, ref, request, result


def recursion_schema() -> Schema:
    """A tree, a mutual pair, JSON values as recursive aliases, and an alias defined before what it names."""
    return mcp_schema(
        {
            "Tree": obj(
                {"value": {"type": "integer"}, "children": {"type": "array", "items": ref("Tree")}},
                ["value"],
            ),
            "Ping": obj({"next": ref("Pong")}),
            "Pong": obj({"next": ref("Ping"), "end": {"type": "boolean"}}),
            "JSONValue": {
                "anyOf": [
                    {"type": "string"},
                    {"type": "number"},
                    {"type": "boolean"},
                    {"type": "null"},
                    ref("JSONObject"),
                    ref("JSONArray"),
                ]
            },
            "JSONObject": {"type": "object", "additionalProperties": ref("JSONValue")},
            "JSONArray": {"type": "array", "items": ref("JSONValue")},
            "Expr": {"anyOf": [{"type": "integer"}, {"type": "array", "items": ref("Expr")}]},
            "Outer": {"type": "array", "items": ref("Inner")},
            "Inner": {"anyOf": [{"type": "string"}, ref("Leaf")]},
            "Leaf": obj({"leaf": {"type": "integer"}}, ["leaf"]),
            "Doc": obj({"data": ref("JSONValue"), "expr": ref("Expr"), "outer": ref("Outer")}),
            "GetDocRequest": request("doc/get"),
            "GetDocResult": result({"doc": ref("Doc")}),
        },
        client_requests=["GetDocRequest"],
    )


def tree(depth: int) -> dict[str, Any]:
    """A chain of `depth` nested trees."""
    node: dict[str, Any] = {"value": 0}
    for i in range(1, depth):
        node = {"value": i, "children": [node, {"value": -i}]}
    return node


def json_value(depth: int) -> Any:
    """A JSON value nesting objects and arrays `depth` deep, with every scalar type at each level."""
    value: Any = [1, 2.5, "s", True, None]
    for i in range(depth):
        value = (
            {"level": i, "ratio": i + 0.5, "inner": value, "list": [value, i]}
            if i % 2
            else [value, {"i": i}]
        )
    return value


SAMPLES: list[tuple[str, Any]] = [
    ("Tree", tree(1)),
    ("Tree", tree(40)),
    ("Tree", {"value": 1, "children": [{"value": "x"}]}),
    ("Ping", {"next": {"next": {"next": {"end": True}}, "end": False}}),
    ("Ping", {"next": {"next": {"next": {"end": [True]}}}}),
    ("JSONValue", json_value(12)),
    ("JSONValue", {"a": [1, {"b": [None, 2.0, {"c": "d"}]}]}),
    ("JSONObject", {"a": {"b": {"c": [1, 2, 3.5]}}}),
    ("JSONArray", [[[[[]]]], {}, 0]),
    ("JSONObject", [1, {"a": 2}]),
    ("Expr", [1, [2, [3, [4, []]]]]),
    ("Expr", [1, [2, ["three"]]]),
    ("Expr", 1.5),
    ("Outer", ["a", {"leaf": 1}]),
    ("Outer", [{"leaf": "one"}]),
    ("Doc", {"data": json_value(6), "expr": [[1]], "outer": ["x"]}),
]


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The generated package of the recursion schema."""
    return generate_package(
        tmp_path_factory.mktemp("recursion"), recursion_schema(), "fn_recursion"
    )


@pytest.mark.parametrize(
    ("definition", "instance"), SAMPLES, ids=lambda v: v if isinstance(v, str) else text(v)[:60]
)
def test_recursive_types_accept_exactly_what_the_schema_accepts(
    pkg: ModuleType, definition: str, instance: Any
) -> None:
    assert_agrees(pkg.types, recursion_schema(), definition, instance)


def test_recursive_models_nest(pkg: ModuleType) -> None:
    types = pkg.types
    root = types.Tree.model_validate(tree(3))
    assert (
        type(root.children[0].children[0]) is types.Tree and root.children[0].children[0].value == 0
    )
    ping = types.Ping.model_validate({"next": {"next": {"end": True}}})
    assert (type(ping.next), type(ping.next.next)) == (types.Pong, types.Ping)


def test_a_result_holding_recursive_aliases_parses(pkg: ModuleType) -> None:
    wire = {"doc": {"data": {"n": [1, 1.0]}, "expr": [1, [2]], "outer": [{"leaf": 3}]}}
    parsed = pkg.parse_result("doc/get", wire)
    assert type(parsed.doc) is pkg.types.Doc and type(parsed.doc.outer[0]) is pkg.types.Leaf
    assert text(parsed.model_dump(mode="json", by_alias=True, exclude_unset=True)) == text(wire)
