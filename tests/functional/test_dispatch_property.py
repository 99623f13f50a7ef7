"""The dispatch of 2025-11-25's `PrimitiveSchemaDefinition` answers as the plain union of its members, for
any JSON value, in strict and lax mode, from Python and from JSON, alone, inside `ElicitRequestParams`
(a smart union over it) and in whole `elicitation/create` messages; the upstream schema agrees."""

from __future__ import annotations

import enum
import json
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple, Union

import jsonschema
import pydantic
import pytest
from hypothesis import HealthCheck, assume, example, given, settings, strategies as st

import mcpgen.model.protocol as protocol
from mcpgen.commands.generate import GenerateConfig, generate
from shared import load_package

from .outcomes import described, outcome

REVISION = "2025-11-25"
MEMBERS = (
    "StringSchema",
    "NumberSchema",
    "BooleanSchema",
    "UntitledSingleSelectEnumSchema",
    "TitledSingleSelectEnumSchema",
    "UntitledMultiSelectEnumSchema",
    "TitledMultiSelectEnumSchema",
    "LegacyTitledEnumSchema",
)


@pytest.fixture(scope="module")
def worlds(
    schema_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[ModuleType, ModuleType]:
    """The 2025-11-25 package as generated, and as generated with no union dispatched (the plain unions)."""
    root = tmp_path_factory.mktemp("worlds")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCPGEN_NO_CACHE", "1")
        generate(
            GenerateConfig(
                revision=REVISION,
                output=root / "tagged_25",
                package="tagged_25",
                schema_dir=schema_dir,
            )
        )
        patch.setattr(protocol, "_dispatch", lambda members, defs: None)
        generate(
            GenerateConfig(
                revision=REVISION,
                output=root / "plain_25",
                package="plain_25",
                schema_dir=schema_dir,
            )
        )
    return load_package(root / "tagged_25", "tagged_25"), load_package(
        root / "plain_25", "plain_25"
    )


class Adapters(NamedTuple):
    """The adapters the tests compare, built once (pydantic 2.11 slows and then overflows the stack when
    adapters of the same deferred models are built hundreds of times, with or without a dispatch).
    """

    dispatched: pydantic.TypeAdapter[Any]
    members: pydantic.TypeAdapter[Any]
    mine: pydantic.TypeAdapter[Any]
    theirs: pydantic.TypeAdapter[Any]


@pytest.fixture(scope="module")
def adapters(worlds: tuple[ModuleType, ModuleType]) -> Adapters:
    """`PrimitiveSchemaDefinition` and the plain union of its classes; `ElicitRequestParams` of both worlds."""
    tagged, plain = worlds
    members = Union[tuple(getattr(tagged.types, n) for n in MEMBERS)]  # type: ignore[arg-type]
    return Adapters(
        pydantic.TypeAdapter(tagged.types.PrimitiveSchemaDefinition),
        pydantic.TypeAdapter(members),
        pydantic.TypeAdapter(tagged.types.ElicitRequestParams),
        pydantic.TypeAdapter(plain.types.ElicitRequestParams),
    )


@pytest.fixture(scope="module")
def upstream(schema_dir: Path) -> Any:
    """A validator of the upstream schema's `PrimitiveSchemaDefinition` (formats not asserted)."""
    schema = json.loads((schema_dir / REVISION / "schema.json").read_text("utf-8"))
    key = "$defs" if "$defs" in schema else "definitions"
    root = {
        "$schema": schema["$schema"],
        "$ref": f"#/{key}/PrimitiveSchemaDefinition",
        key: schema[key],
    }
    return jsonschema.validators.validator_for(root)(root)


class Named(str):
    """A str subclass as the tag: not an exact str, so the whole union decides."""


class Kind(str, enum.Enum):
    """An enum member as the tag."""

    string = "string"
    array = "array"


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=3),
)
TYPES = st.sampled_from(
    ["string", "number", "integer", "boolean", "array", "object", "*", "String"]
)
STRINGS = st.lists(st.text(max_size=2), max_size=3)
OPTIONS = st.lists(
    st.fixed_dictionaries({"const": st.text(max_size=2), "title": st.text(max_size=2)}), max_size=2
)
VALUES = {
    "type": st.one_of(
        TYPES, SCALARS, st.lists(TYPES, max_size=1), st.fixed_dictionaries({"type": TYPES})
    ),
    "title": st.one_of(st.text(max_size=2), SCALARS),
    "description": st.text(max_size=2),
    "format": st.sampled_from(["email", "uri", "date", "date-time", "bogus"]),
    "minLength": st.one_of(st.integers(0, 4), st.just("3"), st.just(2.0)),
    "maxLength": st.one_of(st.integers(0, 4), st.just("x")),
    "minimum": st.one_of(st.integers(-2, 2), st.floats(-2, 2), st.just("1")),
    "maximum": st.one_of(st.integers(-2, 2), st.just(True)),
    "default": st.one_of(SCALARS, STRINGS),
    "enum": st.one_of(STRINGS, st.lists(SCALARS, max_size=2)),
    "enumNames": STRINGS,
    "oneOf": st.one_of(OPTIONS, st.just([{"const": 1}])),
    "one_of": OPTIONS,
    "enum_names": STRINGS,
    "items": st.one_of(
        st.fixed_dictionaries({"type": st.just("string"), "enum": STRINGS}),
        st.fixed_dictionaries({"anyOf": OPTIONS}),
        st.fixed_dictionaries({"type": st.just("string")}),
    ),
    "minItems": st.one_of(st.integers(0, 3), st.just("1")),
    "maxItems": st.integers(0, 3),
    "extra": SCALARS,
}
SHAPES = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(["string", "number", "integer", "boolean"])}),
    st.fixed_dictionaries({"type": st.just("string"), "enum": STRINGS}),
    st.fixed_dictionaries({"type": st.just("string"), "oneOf": OPTIONS}),
    st.fixed_dictionaries({"type": st.just("string"), "one_of": OPTIONS}),
    st.fixed_dictionaries({"type": st.just("string"), "enum": STRINGS, "enumNames": STRINGS}),
    st.fixed_dictionaries({"type": st.just("array"), "items": VALUES["items"]}),
)
"""Each member's required keys, with values that fit."""
PROPERTY = st.one_of(
    st.tuples(
        SHAPES,
        st.dictionaries(st.sampled_from(sorted(VALUES)), st.none(), max_size=3).flatmap(
            lambda keys: st.fixed_dictionaries({k: VALUES[k] for k in keys})
        ),
        st.booleans(),
    ).map(lambda parts: {**parts[0], **parts[1]} if parts[2] else {**parts[1], **parts[0]}),
    st.recursive(
        SCALARS,
        lambda inner: st.lists(inner, max_size=2)
        | st.dictionaries(st.text(max_size=4), inner, max_size=3),
        max_leaves=5,
    ),
)
"""Objects shaped like a member with keys of any member added (values that fit or not, the added keys
winning half the time), and any other JSON value."""


def integral_floats(value: Any) -> bool:
    """True when a float with no fraction is anywhere in `value`."""
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, dict):
        return any(integral_floats(v) for v in value.values())
    return isinstance(value, list) and any(integral_floats(v) for v in value)


def form(value: Any, mode: bool) -> dict[str, Any]:
    """`ElicitRequestParams` with `value` as its one requested property (`mode` given or not)."""
    params = {"message": "m", "requestedSchema": {"type": "object", "properties": {"p": value}}}
    return {"mode": "form", **params} if mode else params


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=PROPERTY, strict=st.booleans(), as_json=st.booleans())
@example(value={"type": "string", "enum": ["x"], "minLength": "3"}, strict=False, as_json=False)
@example(value={"type": "string", "enum": ["x"], "minLength": "3"}, strict=True, as_json=True)
@example(value={"type": "integer", "minimum": "1"}, strict=False, as_json=True)
@example(value={"type": "string", "one_of": [], "minLength": "3"}, strict=False, as_json=False)
@example(
    value={"type": "string", "enum": ["x"], "oneOf": [{"const": 1}]}, strict=True, as_json=True
)
@example(value={"type": "string", "maxLength": "x"}, strict=False, as_json=True)
@example(
    value={"type": "array", "items": {"anyOf": []}, "minItems": "1"}, strict=False, as_json=False
)
def test_the_dispatch_answers_as_the_plain_union(
    adapters: Adapters, value: Any, strict: bool, as_json: bool
) -> None:
    alone = outcome(adapters.dispatched, value, strict, as_json)
    assert alone == outcome(adapters.members, value, strict, as_json)
    for mode in (False, True):
        assert outcome(adapters.mine, form(value, mode), strict, as_json) == outcome(
            adapters.theirs, form(value, mode), strict, as_json
        )


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=PROPERTY)
def test_the_dispatch_accepts_in_strict_json_what_the_upstream_schema_accepts(
    adapters: Adapters, upstream: Any, value: Any
) -> None:
    assume(not integral_floats(value))  # JSON Schema counts 2.0 as an integer; strict mode does not
    assume(not (isinstance(value, dict) and {"one_of", "enum_names"} & set(value)))  # Python names
    accepted = outcome(adapters.dispatched, value, True, True) != "refused"
    assert accepted == upstream.is_valid(value), json.dumps(value)


@pytest.mark.parametrize(
    "value",
    [
        {"type": Named("string"), "enum": ["x"]},
        {"type": Kind.string, "enum": ["x"], "minLength": "3"},
        {"type": Kind.array, "items": {"type": "string", "enum": ["a"]}},
        {"type": b"string"},
        {"type": "boolean", "default": Named("x")},
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_tag_that_is_not_an_exact_str_is_read_as_the_plain_union_reads_it(
    adapters: Adapters, value: Any, strict: bool
) -> None:
    assert outcome(adapters.dispatched, value, strict, False) == outcome(
        adapters.members, value, strict, False
    )


INSTANCES = {
    "StringSchema": {"type": "string", "minLength": 1},
    "NumberSchema": {"type": "integer"},
    "BooleanSchema": {"type": "boolean"},
    "UntitledSingleSelectEnumSchema": {"type": "string", "enum": ["a"]},
    "TitledSingleSelectEnumSchema": {"type": "string", "oneOf": [{"const": "a", "title": "A"}]},
    "UntitledMultiSelectEnumSchema": {"type": "array", "items": {"type": "string", "enum": ["a"]}},
    "TitledMultiSelectEnumSchema": {
        "type": "array",
        "items": {"anyOf": [{"const": "a", "title": "A"}]},
    },
    "LegacyTitledEnumSchema": {"type": "string", "enum": ["a"], "enumNames": ["A"]},
}


@pytest.mark.parametrize("name", MEMBERS)
def test_a_model_instance_is_read_as_the_plain_union_reads_it(
    worlds: tuple[ModuleType, ModuleType], adapters: Adapters, name: str
) -> None:
    instance = getattr(worlds[0].types, name).model_validate(INSTANCES[name])
    for strict in (False, True):
        mine = outcome(adapters.dispatched, instance, strict, False)
        assert mine == outcome(adapters.members, instance, strict, False)
        assert mine != "refused" and mine[0] == name


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(properties=st.dictionaries(st.text(max_size=3), PROPERTY, max_size=3), mode=st.booleans())
def test_whole_elicitation_messages_parse_as_before(
    worlds: tuple[ModuleType, ModuleType], properties: dict[str, Any], mode: bool
) -> None:
    tagged, plain = worlds
    params: dict[str, Any] = {
        "message": "m",
        "requestedSchema": {"type": "object", "properties": properties},
    }
    if mode:
        params["mode"] = "form"
    data = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": params}
    ).encode()
    answers = []
    for pkg in (tagged, plain):
        try:
            answers.append(described(pkg.parse_message(data)))
        except pkg.ProtocolError as exc:
            answers.append(exc.code)
    assert answers[0] == answers[1]


def top(schema: Any) -> Any:
    """A core schema without its definitions wrapper."""
    return schema["schema"] if schema["type"] == "definitions" else schema


def test_the_oracle_is_the_plain_union_and_the_package_dispatches(
    worlds: tuple[ModuleType, ModuleType],
) -> None:
    mine, theirs = (
        top(pydantic.TypeAdapter(p.types.PrimitiveSchemaDefinition).core_schema) for p in worlds
    )
    assert mine["type"] == "tagged-union" and sorted(mine["choices"]) == [
        "*",
        "array",
        "boolean",
        "integer",
        "number",
        "string",
        "string:StringSchema",
        "string:StringSchema|TitledSingleSelectEnumSchema",
        "string:StringSchema|UntitledSingleSelectEnumSchema|LegacyTitledEnumSchema",
    ]
    assert theirs["type"] == "union" and len(theirs["choices"]) == len(MEMBERS)


@pytest.mark.parametrize(
    "name", ["PrimitiveSchemaDefinition", "EnumSchema", "ElicitRequestParams", "ElicitRequest"]
)
def test_the_json_schema_is_the_plain_union_s(
    worlds: tuple[ModuleType, ModuleType], name: str
) -> None:
    """A `oneOf` over the tags would refuse every value (each matches its tag's members and the fallback)."""
    mine, theirs = (pydantic.TypeAdapter(getattr(p.types, name)).json_schema() for p in worlds)
    assert mine == theirs


@pytest.mark.parametrize(
    "text",
    [
        '{"type": "number", "type": "string", "enum": ["a"]}',
        '{"type": "string", "type": "number"}',
        '{"type": "boolean", "type": "array", "items": {"type": "string", "enum": ["a"]}}',
        '{"type": "array", "enum": ["a"], "type": "string"}',
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_tag_given_twice_in_json_is_read_as_the_plain_union_reads_it(
    adapters: Adapters, text: str, strict: bool
) -> None:
    """The tag function sees the decoded object (the last value wins); so must the members."""
    answers = []
    for adapter in (adapters.dispatched, adapters.members):
        try:
            answers.append(described(adapter.validate_json(text, strict=strict)))
        except pydantic.ValidationError:
            answers.append("refused")
    assert answers[0] == answers[1] != "refused"
