"""Scalars: `number` keeps ints and floats apart, formats stay `str`, enums, constants, constraints, nulls."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pydantic
import pytest

from .oracle import accepts, assert_agrees, text
from .packages import generate_package
from .schemas import Schema, mcp_schema, obj, ref, request, result

QUOTED = 'say "hi"\\n\n\t\'done\'"'


def scalar_schema() -> Schema:
    """One object with a property per scalar feature."""
    measure = obj(
        {
            "n": {"type": "number"},
            "i": {"type": "integer"},
            "numbers": {"type": "array", "items": {"type": "number"}},
            "byName": {"type": "object", "additionalProperties": {"type": "number"}},
            "numberOrText": {"anyOf": [{"type": "number"}, {"type": "string"}]},
            "nullable": {"type": ["string", "null"]},
            "maybe": {"type": "array", "items": {"type": ["integer", "null"]}},
            "mixed": {"type": ["string", "integer"]},
            "uri": {"type": "string", "format": "uri"},
            "when": {"type": "string", "format": "date-time"},
            "blob": {"type": "string", "format": "byte"},
            "email": {"type": "string", "format": "email"},
            "format": {"type": "string"},
            "role": {"enum": ["user", "assistant"], "type": "string"},
            "quoted": {"const": QUOTED, "type": "string"},
            "count": {"type": "integer", "minimum": 0, "maximum": 10},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "step": {"type": "integer", "multipleOf": 5},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
            "code": {"type": "string", "minLength": 2, "maxLength": 3},
            "ttl": {"anyOf": [{"type": "integer", "minimum": 0, "maximum": 100}, {"type": "null"}]},
        },
        ["n"],
    )
    return mcp_schema(
        {
            "Measure": measure,
            "MeasureRequest": request("measure"),
            "MeasureResult": result({"m": ref("Measure")}),
        },
        client_requests=["MeasureRequest"],
    )


# Instances the schema accepts or rejects; the generated model must agree with jsonschema on each.
SAMPLES: list[dict[str, Any]] = [
    {"n": 1},
    {"n": 2.5},
    {"n": 1.0},
    {"n": -0.0},
    {"n": 10**30},
    {"n": 1, "i": 7, "numbers": [1, 2.5, 3, 4.0], "byName": {"a": 1, "b": 0.5}},
    {"n": 1, "numberOrText": 3},
    {"n": 1, "numberOrText": 3.5},
    {"n": 1, "numberOrText": "3"},
    {"n": 1, "i": 1.5},
    {"n": 1, "nullable": None},
    {"n": 1, "nullable": "x"},
    {"n": 1, "maybe": [1, None, 2]},
    {"n": 1, "maybe": [1.5]},
    {"n": 1, "mixed": "x"},
    {"n": 1, "mixed": 4},
    {"n": 1, "mixed": 4.5},
    {"n": 1, "uri": "HTTP://Example.COM:80/a/../b?q=1#f", "when": "2024-01-01T00:00:00.000+00:00"},
    {
        "n": 1,
        "uri": "not a uri at all",
        "when": "yesterday",
        "blob": "not base64!",
        "email": "nobody",
    },
    {"n": 1, "blob": "aGVsbG8=", "email": "a@b.example"},
    {"n": 1, "format": "kept"},
    {"n": 1, "format": 3},
    {"n": 1, "role": "user"},
    {"n": 1, "role": "assistant"},
    {"n": 1, "role": "system"},
    {"n": 1, "quoted": QUOTED},
    {"n": 1, "quoted": "say hi"},
    {"n": 1, "count": 0, "ratio": 0.5, "step": 15, "tags": ["a"], "code": "ab"},
    {"n": 1, "count": 10, "tags": ["a", "b"], "code": "abc"},
    {"n": 1, "step": 7},
    {"n": 1, "tags": []},
    {"n": 1, "tags": ["a", "b", "c"]},
    {"n": 1, "code": "a"},
    {"n": 1, "code": "abcd"},
    {"n": 1, "ttl": 100},
    {"n": 1, "ttl": None},
    {},
]


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The generated package of the scalar schema."""
    return generate_package(tmp_path_factory.mktemp("scalars"), scalar_schema(), "fn_scalars")


@pytest.mark.parametrize("instance", SAMPLES, ids=text)
def test_the_model_accepts_exactly_what_the_schema_accepts_and_dumps_it_unchanged(
    pkg: ModuleType, instance: dict[str, Any]
) -> None:
    assert_agrees(pkg.types, scalar_schema(), "Measure", instance)


@pytest.mark.parametrize(
    "instance",
    [
        {"n": 1, "count": -1},
        {"n": 1, "count": 11},
        {"n": 1, "ratio": 0},
        {"n": 1, "ratio": 1},
        {"n": 1, "ttl": 101},  # the bounds of a union member, hoisted as an alias
        {"n": 1, "ttl": -1},
    ],
    ids=text,
)
def test_numeric_bounds_reject_what_the_schema_rejects(
    pkg: ModuleType, instance: dict[str, Any]
) -> None:
    assert not accepts(scalar_schema(), "Measure", instance)
    with pytest.raises(pydantic.ValidationError):
        pkg.types.Measure.model_validate(instance)


def test_ints_stay_ints_and_floats_stay_floats(pkg: ModuleType) -> None:
    m = pkg.types.Measure.model_validate(
        {"n": 1, "numbers": [2, 2.0], "byName": {"a": 3}, "numberOrText": 4}
    )
    assert [type(v) for v in (m.n, *m.numbers, m.by_name["a"], m.number_or_text)] == [
        int,
        int,
        float,
        int,
        int,
    ]
    assert type(pkg.types.Measure(n=1.0).n) is float
    assert (
        pkg.types.Measure.model_validate_json('{"n": 12345678901234567890}').n
        == 12345678901234567890
    )


def test_formats_stay_plain_strings(pkg: ModuleType) -> None:
    wire = {
        "n": 1,
        "uri": "HTTP://Example.COM:80/a/../b",
        "when": "2024-01-01T00:00:00Z",
        "blob": "aGk=",
        "email": "a@b.example",
    }
    m = pkg.types.Measure.model_validate(wire)
    assert [type(v) for v in (m.uri, m.when, m.blob, m.email)] == [str, str, str, str]
    assert (m.uri, m.when, m.blob, m.email) == (
        wire["uri"],
        wire["when"],
        wire["blob"],
        wire["email"],
    )
    named = pkg.types.Measure.model_validate({"n": 1, "format": "f"})
    assert (named.format, named.model_extra) == (
        "f",
        {},
    ), "a property named `format` is a field like any other"


def test_enum_and_constant_values_are_plain_strings(pkg: ModuleType) -> None:
    m = pkg.types.Measure.model_validate({"n": 1, "role": "assistant", "quoted": QUOTED})
    assert type(m.role) is str and m.role == "assistant"
    assert m.quoted == QUOTED
