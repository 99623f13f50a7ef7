"""Discriminators: unions of tagged objects select their member by `type`, `method`, `resultType` or `kind`."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pydantic
import pytest

from .oracle import assert_agrees, text
from .packages import generate_package
from .schemas import Schema, const, mcp_schema, obj, ref, request, result


def tagged(key: str, value: str, **properties: Any) -> Schema:
    """An object whose required `key` is the constant `value`, with required string/number properties."""
    return obj({key: const(value), **properties}, [key, *properties])


def union(*members: Schema) -> Schema:
    """`anyOf` these member schemas."""
    return {"anyOf": list(members)}


STRING = {"type": "string"}
INTEGER = {"type": "integer"}


def discriminator_schema() -> Schema:
    """Tagged unions on every key, nested in lists and maps, mixed with non-objects, and some that cannot be tagged."""
    return mcp_schema(
        {
            "TextContent": tagged("type", "text", text=STRING),
            "ImageContent": tagged("type", "image", data=STRING, mimeType=STRING),
            "ContentBlock": union(ref("TextContent"), ref("ImageContent")),
            "Mixed": union(
                ref("TextContent"),
                STRING,
                ref("ImageContent"),
                {"type": "array", "items": ref("TextContent")},
            ),
            "Message": obj(
                {
                    "parts": {
                        "type": "array",
                        "items": union(ref("TextContent"), ref("ImageContent")),
                    },
                    "byName": {
                        "type": "object",
                        "additionalProperties": union(ref("TextContent"), ref("ImageContent")),
                    },
                }
            ),
            "Square": tagged("kind", "square", side=INTEGER),
            "Circle": tagged("kind", "circle", radius=INTEGER),
            "Shape": union(ref("Square"), ref("Circle")),
            "LooseContent": obj({"type": const("loose"), "note": STRING}),
            "Loose": union(ref("TextContent"), ref("LooseContent")),
            "TextAgain": tagged("type", "text", body=STRING),
            "Twin": union(ref("TextContent"), ref("TextAgain")),
            "Letters": obj(
                {"type": {"enum": ["x", "y"], "type": "string"}, "letter": STRING},
                ["type", "letter"],
            ),
            "Multi": union(ref("TextContent"), ref("Letters")),
            "InputRequiredResult": obj(
                {"resultType": const("input_required"), "requestState": STRING}, ["resultType"]
            ),
            "ComputeResult": obj(
                {"resultType": const("complete"), "value": INTEGER}, ["resultType", "value"]
            ),
            "ComputeRequest": request("compute", obj({"x": INTEGER}, ["x"])),
            "ComputeResultResponse": obj(
                {
                    "jsonrpc": const("2.0"),
                    "id": ref("RequestId"),
                    "result": union(ref("InputRequiredResult"), ref("ComputeResult")),
                },
                ["jsonrpc", "id", "result"],
            ),
            "PingRequest": request("ping"),
            "PingResult": result(),
        },
        client_requests=["PingRequest", "ComputeRequest"],
    )


SAMPLES: list[tuple[str, Any]] = [
    ("ContentBlock", {"type": "text", "text": "hi"}),
    ("ContentBlock", {"type": "image", "data": "AA==", "mimeType": "image/png", "extra": 1}),
    ("ContentBlock", {"type": "text", "data": "AA=="}),
    ("ContentBlock", {"type": "video"}),
    ("ContentBlock", {"text": "untagged"}),
    ("Mixed", "plain"),
    ("Mixed", {"type": "image", "data": "AA==", "mimeType": "image/png"}),
    ("Mixed", [{"type": "text", "text": "a"}]),
    ("Mixed", {"type": "text"}),
    ("Mixed", 3),
    (
        "Message",
        {"parts": [{"type": "text", "text": "a"}, {"type": "image", "data": "", "mimeType": ""}]},
    ),
    ("Message", {"byName": {"a": {"type": "text", "text": "a"}}}),
    ("Message", {"parts": [{"type": "image", "text": "a"}]}),
    ("Shape", {"kind": "square", "side": 2}),
    ("Shape", {"kind": "circle", "side": 2}),
    ("Loose", {"note": "no tag at all"}),
    ("Loose", {"type": "text", "text": "t"}),
    ("Loose", {"type": "loose"}),
    ("Twin", {"type": "text", "text": "t"}),
    ("Twin", {"type": "text", "body": "b"}),
    ("Twin", {"type": "text"}),
    ("Multi", {"type": "x", "letter": "x"}),
    ("Multi", {"type": "y", "letter": "y"}),
    ("Multi", {"type": "z", "letter": "z"}),
]


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The generated package of the discriminator schema."""
    return generate_package(
        tmp_path_factory.mktemp("discriminators"), discriminator_schema(), "fn_discriminators"
    )


def errors(pkg: ModuleType, definition: str, instance: Any) -> list[tuple[str, tuple[Any, ...]]]:
    """The (type, location) of each validation error of `instance` against the generated `definition`."""
    with pytest.raises(pydantic.ValidationError) as caught:
        pydantic.TypeAdapter(getattr(pkg.types, definition)).validate_python(instance)
    return [(e["type"], e["loc"]) for e in caught.value.errors()]


@pytest.mark.parametrize(
    ("definition", "instance"), SAMPLES, ids=lambda v: v if isinstance(v, str) else text(v)
)
def test_tagged_unions_accept_exactly_what_the_schema_accepts(
    pkg: ModuleType, definition: str, instance: Any
) -> None:
    assert_agrees(pkg.types, discriminator_schema(), definition, instance)


@pytest.mark.parametrize(
    ("definition", "instance", "expected"),
    [
        ("ContentBlock", {"type": "text", "text": 1}, [("string_type", ("text", "text"))]),
        ("Shape", {"kind": "circle", "radius": "r"}, [("int_parsing", ("circle", "radius"))]),
        (
            "Message",
            {"parts": [{"type": "image", "data": "", "mimeType": 1}]},
            [("string_type", ("parts", 0, "image", "mimeType"))],
        ),
        (
            "Message",
            {"byName": {"k": {"type": "text"}}},
            [("missing", ("byName", "k", "text", "text"))],
        ),
        (
            "ClientRequest",
            {"jsonrpc": "2.0", "id": 1, "method": "compute", "params": 3},
            [("model_type", ("compute", "params"))],
        ),
    ],
)
def test_a_bad_member_reports_only_the_errors_of_the_member_its_tag_selects(
    pkg: ModuleType, definition: str, instance: Any, expected: list[Any]
) -> None:
    assert errors(pkg, definition, instance) == expected


def test_an_unknown_tag_is_one_error(pkg: ModuleType) -> None:
    assert errors(pkg, "ContentBlock", {"type": "video"}) == [("union_tag_invalid", ())]
    assert errors(pkg, "ClientRequest", {"jsonrpc": "2.0", "id": 1, "method": "nope"}) == [
        ("union_tag_invalid", ())
    ]


def test_the_objects_of_a_mixed_union_are_grouped_under_their_tag(pkg: ModuleType) -> None:
    found = errors(pkg, "Mixed", {"type": "text", "text": 5})
    object_errors = [loc for _, loc in found if len(loc) > 1]
    assert [loc[-2:] for loc in object_errors] == [("text", "text")]


def test_result_unions_are_told_apart_by_result_type(pkg: ModuleType) -> None:
    done = pkg.parse_result("compute", {"resultType": "complete", "value": 3})
    waiting = pkg.parse_result("compute", {"resultType": "input_required", "requestState": "s"})
    assert (type(done), type(waiting)) == (pkg.types.ComputeResult, pkg.types.InputRequiredResult)
    with pytest.raises(pkg.ProtocolError) as caught:
        pkg.parse_result("compute", {"resultType": "complete", "value": "three"})
    assert caught.value.code == -32602
    assert [(e["type"], e["loc"]) for e in caught.value.data] == [
        ("int_parsing", ["complete", "value"])
    ]
