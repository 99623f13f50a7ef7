"""Reading messages from bytes in one pass (runtime/onepass.py) answers exactly as the full path does:
`parse_message` of bytes (one pass where it can) against `parse_message` of the same bytes as a
bytearray (always the full path: decode, check the envelope, validate), on every revision's documented
requests and notifications bent in every way hypothesis finds, and on any bytes.

Budget: `HYPOTHESIS_PROFILE=ci` (the default, set in tests/test_fuzz.py) or `long`.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypeAliasType

from mcpgen.runtime.jsonrpc import ProtocolError
from mcpgen.runtime.onepass import Reader
from mcpgen.runtime.registry import Method, Registry
from wiring import V25, request

REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
FUZZ = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
RAW_NUMBERS = [
    b"1e400", b"-1E+400", b"1e308", b"1e0", b"1.0", b"-0", b"5e-400", b"0.5e309", b"NaN", b"Infinity",
    b"-Infinity", b"1" + b"0" * 250 + b"e99", b"2" + b"0" * 309 + b".5", b"1" + b"0" * 209 + b"e98",
]  # fmt: skip
PLACEHOLDER = "\u2603raw\u2603"
values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.sampled_from(["2.0", "1", "5", "1.5", "true", "", "string", "number", "object", PLACEHOLDER]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


def snapshot(value: Any) -> Any:
    """`value` with every type and every set of given fields spelled out (== alone takes 1 for 1.0)."""
    if isinstance(value, BaseModel):
        extra = value.__pydantic_extra__
        return (
            type(value),
            sorted(value.model_fields_set),
            snapshot(value.__dict__),
            None if extra is None else snapshot(extra),
        )
    if isinstance(value, dict):
        return ("dict", tuple((key, snapshot(item)) for key, item in value.items()))
    if isinstance(value, list):
        return ("list", tuple(snapshot(item) for item in value))
    return (type(value), value)


def outcome(registry: Any, data: bytes | bytearray) -> Any:
    """What `registry.parse_message` gives for `data`: the model (as a snapshot) or the error."""
    try:
        return ("ok", snapshot(registry.parse_message(data)))
    except ProtocolError as error:
        return ("error", error.code, error.message, repr(error.data))


def told(data: Any, decoded: Any) -> Any:
    """A full path that only tells what one pass gave it: the message was not read in one pass."""
    return ("full path", decoded)


def read_alone(registry: Any, data: bytes) -> Any:
    """What the registry's one-pass reader makes of `data` by itself, as it stands: the model it read,
    or what it hands the full path (`told`)."""
    reader = registry._one_pass
    full, reader._full = reader._full, told
    try:
        return reader.read(data)
    finally:
        reader._full = full


def documented(schema_dir: Path, revision: str) -> list[dict[str, Any]]:
    """The requests and notifications among `revision`'s documentation examples."""
    root = schema_dir / revision / "doc-examples"
    found = []
    for entry in json.loads((root / "index.json").read_text("utf-8")):
        if entry.get("strict_json"):
            message = json.loads((root / entry["file"]).read_bytes())
            if isinstance(message, dict) and isinstance(message.get("method"), str):
                found.append(message)
    return found


@pytest.fixture(scope="module")
def corpus(
    linked: dict[str, ModuleType], schema_dir: Path
) -> dict[str, tuple[Any, list[dict[str, Any]]]]:
    """Each revision's registry, after reading its documented messages from bytes twice (the one pass
    takes a method's model once the full path has read a message of it and another one comes), and
    those messages."""
    found = {}
    for revision in REVISIONS:
        registry = linked["2024-11-05..2026-07-28"].REVISIONS[revision].registry
        messages = documented(schema_dir, revision)
        for message in messages * 2:
            outcome(registry, json.dumps(message).encode())
        found[revision] = (registry, messages)
    return found


def encoded(message: Any, raw: bytes) -> bytes:
    """`message` as JSON text, each placeholder string written as the number text `raw`."""
    return json.dumps(message).encode().replace(json.dumps(PLACEHOLDER).encode(), raw)


def bend(message: Any, data: st.DataObject) -> Any:
    """`message` with one of its values replaced, removed or added, anywhere in it."""
    place = message
    while isinstance(place, (dict, list)) and place and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(list(place.keys()) if isinstance(place, dict) else range(len(place))))
        if not isinstance(place[key], (dict, list)):
            break
        place = place[key]
    if isinstance(place, list) and place:
        place[data.draw(st.integers(0, len(place) - 1))] = data.draw(values)
    elif isinstance(place, dict) and place and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(list(place)))
        if data.draw(st.booleans()):
            del place[key]
        else:
            place[key] = data.draw(values)
    elif isinstance(place, dict):
        place[data.draw(st.sampled_from(["extra", "_meta", "arguments", "type"]))] = data.draw(values)
    return message


CHANGES = ["jsonrpc", "id", "method", "body", "number", "number", "twice", "none"]
ENVELOPE = {
    "jsonrpc": st.sampled_from(["2.0", "1.0", 2.0, None, PLACEHOLDER]),
    "id": st.sampled_from([1, "1", 0, True, False, 1.0, None, [1], {}, 2**70, PLACEHOLDER]),
}


def variants(message: dict[str, Any], names: list[str]) -> list[bytes]:
    """`message` as JSON text, and copies bent in every way the envelope checks and the number guard
    distinguish: each envelope key dropped or set to what the full path refuses, a key given twice,
    numbers a float cannot carry, compact and spaced layouts."""
    bent: list[Any] = [message]
    for key, value in [("jsonrpc", "1.0"), ("jsonrpc", 2.0), ("jsonrpc", None), ("id", True), ("id", False),
                       ("id", 1.0), ("id", None), ("id", [1]), ("id", "x"), ("id", 2**70), ("method", 5)]:  # fmt: skip
        bent.append({**message, key: value})
    bent += [{k: v for k, v in message.items() if k != key} for key in ("jsonrpc", "id", "method")]
    bent += [{**message, "method": name} for name in names[:: max(1, len(names) // 6)]]
    texts = [json.dumps(m).encode() for m in bent]
    texts.append(json.dumps(message, separators=(",", ":")).encode())
    base = json.dumps(message).encode()
    for key, value in [("jsonrpc", b'"1.0"'), ("id", b"true"), ("method", b'"nope"'), ("id", b'"x"')]:
        texts.append(base[: base.rindex(b"}")] + b', "%s": %s}' % (key.encode(), value))
    if isinstance(message.get("params"), dict):
        for raw in RAW_NUMBERS:
            params = {**message["params"], "_meta": {"n": PLACEHOLDER}, "extra": [PLACEHOLDER]}
            texts.append(encoded({**message, "params": params}, raw))
    return texts


def test_one_pass_answers_each_bent_envelope_as_the_full_path(
    corpus: dict[str, tuple[Any, list[dict[str, Any]]]],
) -> None:
    checked = 0
    for registry, messages in corpus.values():
        for message in messages:
            for text in variants(message, sorted(registry.methods)):
                assert outcome(registry, text) == outcome(registry, bytearray(text)), text
                checked += 1
    assert checked > 3000


@FUZZ
@given(data=st.data())
def test_one_pass_answers_every_bent_message_as_the_full_path(
    corpus: dict[str, tuple[Any, list[dict[str, Any]]]], data: st.DataObject
) -> None:
    registry, messages = corpus[data.draw(st.sampled_from(REVISIONS))]
    message = copy.deepcopy(data.draw(st.sampled_from(messages)))
    raw = b"1"
    changes = data.draw(st.lists(st.sampled_from(CHANGES), min_size=1, max_size=3))
    for change in changes:
        if change in ("jsonrpc", "id", "method"):
            names = st.sampled_from(sorted(registry.methods))
            if data.draw(st.booleans()):
                message.pop(change, None)
            else:
                message[change] = data.draw(ENVELOPE.get(change, names))
        elif change == "body":
            message = bend(message, data)
        elif change == "number" and isinstance(message.get("params"), dict):
            message["params"][data.draw(st.sampled_from(["_meta", "x", "progress", "arguments"]))] = PLACEHOLDER
            raw = data.draw(st.sampled_from(RAW_NUMBERS))
    text = encoded(message, raw)
    if "twice" in changes:  # a key given twice: the last one counts
        key = data.draw(st.sampled_from(["jsonrpc", "id", "method", "params"]))
        value = encoded(data.draw(values | ENVELOPE["id"]), b"1e400")
        text = text[: text.rindex(b"}")] + b', "%s": %s}' % (key.encode(), value)
    assert outcome(registry, text) == outcome(registry, bytearray(text))


@FUZZ
@given(revision=st.sampled_from(REVISIONS), text=st.binary(max_size=80) | values.map(lambda v: encoded(v, b"1")))
def test_one_pass_answers_any_bytes_as_the_full_path(
    corpus: dict[str, tuple[Any, list[dict[str, Any]]]], revision: str, text: bytes
) -> None:
    registry, _ = corpus[revision]
    assert outcome(registry, text) == outcome(registry, bytearray(text))


def test_the_one_pass_reads_a_method_once_the_full_path_has_read_one_of_its_messages(
    multi: ModuleType,
) -> None:
    """Before, and for the next message of it (which takes its model into the union), it gives the
    decoded object, for the full path to check (one decoding all the same)."""
    registry = multi.REVISIONS[V25].registry
    reader = Reader({n: (s.message, s.kind == "request") for n, s in registry.methods.items() if not s.embedded}, told)
    data = json.dumps(request("tools/call", {"name": "t", "arguments": {"x": [1, 2.5]}})).encode()
    assert reader.read(data) == ("full path", json.loads(data))
    full = registry.parse_message(bytearray(data))
    reader.learn(type(full))
    assert reader.read(data) == ("full path", json.loads(data))
    assert snapshot(reader.read(data)) == snapshot(full)
    assert reader.read(data.replace(b'"2.0"', b'"1.0"')) == ("full path", None)
    assert reader.read(data.replace(b"2.5", b"NaN")) == ("full path", None)
    assert reader.read(bytearray(data)) == ("full path", None)  # bytes alone are read in one pass


def test_models_learned_together_are_taken_into_the_union_with_one_build(
    multi: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first pass over many methods builds the union once, not once per method: each method's model
    waits until a message of its method comes again, and then every model learned so far goes in."""
    registry = multi.REVISIONS[V25].registry
    reader = Reader({n: (s.message, s.kind == "request") for n, s in registry.methods.items() if not s.embedded}, told)
    builds = []
    union = Reader._union
    monkeypatch.setattr(Reader, "_union", lambda self: builds.append(1) or union(self))
    texts = [json.dumps(request(m, p)).encode() for m, p in [("ping", {}), ("tools/list", {}), ("prompts/list", {})]]
    for text in texts:
        assert reader.read(text) == ("full path", json.loads(text))  # decoded: the full path decides
        reader.learn(type(registry.parse_message(bytearray(text))))
    assert len(builds) == 1  # the first read: a union of no model yet
    assert reader.read(texts[1]) == ("full path", json.loads(texts[1]))  # comes again: all three taken in, one build
    assert len(builds) == 2
    for text in texts:
        assert snapshot(reader.read(text)) == snapshot(registry.parse_message(bytearray(text)))
    assert len(builds) == 2


def test_documented_messages_are_read_in_one_pass_except_where_unions_forbid(
    corpus: dict[str, tuple[Any, list[dict[str, Any]]]],
) -> None:
    """Strict validation settles a union of models as lax validation does unless a lax coercion can
    make another member set more fields: the methods whose models hold such a union where a check of
    the values it read cannot reach it (2025-11-25's elicitation/create: its params are a union of
    models one of which holds the property schemas) always take the full path; where one can
    (2025-06-18's property schemas), they are read in one pass and checked."""
    skipped = set()
    for revision, (registry, messages) in corpus.items():
        for message in messages:
            data = json.dumps(message).encode()
            read = read_alone(registry, data)
            if not isinstance(read, BaseModel):
                skipped.add((revision, message["method"]))
            else:
                assert snapshot(read) == snapshot(registry.parse_message(bytearray(data)))
    assert ("2025-11-25", "elicitation/create") in skipped  # its params are a union of such members
    assert ("2025-06-18", "elicitation/create") not in skipped  # read in one pass, and checked
    assert len(skipped) < sum(len(m) for _, m in corpus.values()) / 5


def test_a_union_strict_mode_would_settle_otherwise_is_read_as_lax_mode_reads_it(
    corpus: dict[str, tuple[Any, list[dict[str, Any]]]],
) -> None:
    registry, _ = corpus[V25]
    schema = {"type": "string", "enum": ["x"], "minLength": "3", "maxLength": "5"}
    params = {"mode": "form", "message": "m", "requestedSchema": {"type": "object", "properties": {"a": schema}}}
    data = json.dumps(request("elicitation/create", params)).encode()
    model = registry.methods["elicitation/create"].message
    strictly = model.__pydantic_validator__.validate_json(data, strict=True)
    read = registry.parse_message(data).params.requested_schema.properties["a"]
    assert type(strictly.params.requested_schema.properties["a"]).__name__ == "UntitledSingleSelectEnumSchema"
    assert type(read).__name__ == "StringSchema" and read.min_length == 3


class _Params(BaseModel):
    model_config = ConfigDict(extra="allow")


class _Defaulted(BaseModel):
    """`jsonrpc` with a default: strict validation takes a message without it."""

    model_config = ConfigDict(extra="allow")
    jsonrpc: Literal["2.0"] = "2.0"
    id: str | int
    method: Literal["m"]


class _FloatId(BaseModel):
    """An `id` that may be a float: strict validation takes 1.5, the full path does not."""

    model_config = ConfigDict(extra="allow")
    jsonrpc: Literal["2.0"]
    id: str | int | float
    method: Literal["m"]


class _AnyMethod(BaseModel):
    """A `method` of any name: only the full path's table says which model reads it."""

    model_config = ConfigDict(extra="allow")
    jsonrpc: Literal["2.0"]
    id: str | int
    method: str


class _Aliased(BaseModel):
    """A field the key `ID` fills as well as `id`."""

    model_config = ConfigDict(extra="allow", validate_by_name=True, validate_by_alias=True)
    jsonrpc: Literal["2.0"]
    id: str | int = Field(alias="ID")
    method: Literal["m"]


@pytest.mark.parametrize("model", [_Defaulted, _FloatId, _AnyMethod, _Aliased])
def test_models_whose_fields_require_less_than_the_full_path_are_never_read_in_one_pass(
    model: type[BaseModel],
) -> None:
    spec = Method("m", "request", frozenset({"client"}), model, _Params, None, "m", False, False, None)
    registry = Registry({"m": spec}, error=_Params, response=_Params, batching=False)
    texts = [
        b'{"jsonrpc": "2.0", "id": 1, "method": "m"}',
        b'{"id": 1, "method": "m"}',
        b'{"jsonrpc": "2.0", "id": 1.5, "method": "m"}',
        b'{"jsonrpc": "2.0", "ID": 1, "method": "m"}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "n"}',
    ]
    for text in texts * 2:  # the second time round, after the full path has read a message of `m`
        assert outcome(registry, text) == outcome(registry, bytearray(text))


PROPERTY_KEYS = [
    "type", "enum", "enumNames", "enum_names", "oneOf", "anyOf", "items", "format", "title", "description",
    "minLength", "maxLength", "min_length", "max_length", "minimum", "maximum", "default", "minItems",
]  # fmt: skip
PROPERTY_VALUES = st.sampled_from(
    ["string", "number", "integer", "boolean", "array", "3", "x", "email", "true", 3, 3.0, 2.5, True, 0, None]
    + [["a"], ["a", "b"], [], [{"const": "a", "title": "A"}], {"type": "string", "enum": ["a"]}]
)
property_schemas = st.tuples(
    st.dictionaries(st.sampled_from(PROPERTY_KEYS), PROPERTY_VALUES | values, max_size=4),
    st.fixed_dictionaries({"type": st.sampled_from(["string", "number", "integer", "boolean", "array"])})
    | st.just({}),
).map(lambda pair: {**pair[0], **pair[1]})  # a type of the union's tags, mostly


@FUZZ
@given(
    revision=st.sampled_from(["2025-06-18", "2025-11-25", "2026-07-28"]),
    schemas=st.lists(property_schemas, min_size=1, max_size=3),
    form=st.booleans(),
)
def test_elicitation_property_schemas_are_read_as_the_full_path_reads_them(
    corpus: dict[str, tuple[Any, list[dict[str, Any]]]], revision: str, schemas: list[Any], form: bool
) -> None:
    """Each property schema is a value of a union of models strict and lax mode may settle otherwise
    (a key a coercion reads, such as `minLength: "3"`, beside another member's keys)."""
    registry, _ = corpus[revision]
    properties = {f"p{i}": schema for i, schema in enumerate(schemas)}
    params = {"message": "m", "requestedSchema": {"type": "object", "properties": properties}}
    if form:
        params["mode"] = "form"
    text = json.dumps(request("elicitation/create", params)).encode()
    assert outcome(registry, text) == outcome(registry, bytearray(text))


RESPONSE_KEYS = ["role", "content", "model", "stopReason", "roots", "action", "_meta", "x", "type", "text"]
RESPONSE_VALUES = st.sampled_from(
    ["user", "assistant", "accept", "decline", "m", "3", 3, 1.5, True, None, {"a": "3"}, {"a": 3}]
    + [{"type": "text", "text": "t"}, [{"uri": "file:///a"}], [], {"type": "text", "text": 3}]
)


@FUZZ
@given(
    method=st.sampled_from(["tools/call", "prompts/get", "resources/read"]),
    responses=st.dictionaries(
        st.sampled_from(["a", "b"]),
        st.dictionaries(st.sampled_from(RESPONSE_KEYS), RESPONSE_VALUES | values, max_size=4),
        max_size=2,
    ),
)
def test_input_responses_are_read_as_the_full_path_reads_them(
    corpus: dict[str, tuple[Any, list[dict[str, Any]]]], method: str, responses: dict[str, Any]
) -> None:
    """2026-07-28's input responses are a plain union of three results: checked like elicitation's."""
    registry, messages = corpus["2026-07-28"]
    message = copy.deepcopy(next(m for m in messages if m["method"] == method))
    message.setdefault("params", {})["inputResponses"] = responses
    text = json.dumps(message).encode()
    assert outcome(registry, text) == outcome(registry, bytearray(text))


def test_a_checked_union_read_otherwise_by_a_coercion_takes_the_full_path(
    corpus: dict[str, tuple[Any, list[dict[str, Any]]]],
) -> None:
    """2025-06-18: strict mode reads `{"type": "string", "enum": [...], "minLength": "3", ...}` as an
    `EnumSchema`, lax mode (more fields set) as a `StringSchema`; the key `minLength`, which
    `StringSchema` reads by a coercion, sends it the full path. Without it, one pass reads it."""
    registry, _ = corpus["2025-06-18"]
    model = registry.methods["elicitation/create"].message
    plain = {"type": "string", "enum": ["x"]}
    for schema, one_pass in [({**plain, "minLength": "3", "maxLength": "5"}, False), (plain, True)]:
        params = {"message": "m", "requestedSchema": {"type": "object", "properties": {"a": schema}}}
        data = json.dumps(request("elicitation/create", params)).encode()
        strictly = model.__pydantic_validator__.validate_json(data, strict=True)
        assert type(strictly.params.requested_schema.properties["a"]).__name__ == "EnumSchema"
        assert isinstance(read_alone(registry, data), BaseModel) is one_pass
        read = registry.parse_message(data).params.requested_schema.properties["a"]
        assert snapshot(read) == snapshot(registry.parse_message(bytearray(data)).params.requested_schema.properties["a"])
        assert type(read).__name__ == ("EnumSchema" if one_pass else "StringSchema")


class _Short(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: Literal["s"]
    n: int = 0
    m: int = 0
    s1: str = ""
    s2: str = ""


class _Listed(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: Literal["s"]
    e: list[str]
    n: str = ""


class _Quiet(BaseModel):
    """Drops the keys it does not know: a value of it cannot show what another member would coerce."""

    model_config = ConfigDict(extra="ignore")
    type: Literal["s"]
    e: list[str]


class _Mapped(BaseModel):
    model_config = ConfigDict(extra="allow")
    jsonrpc: Literal["2.0"]
    id: str | int
    method: Literal["m"]
    params: dict[str, _Short | _Listed] | None = None


class _Inside(BaseModel):
    """The union inside another union: no path leads a check to its values."""

    model_config = ConfigDict(extra="allow")
    jsonrpc: Literal["2.0"]
    id: str | int
    method: Literal["m"]
    params: list[dict[str, _Short | _Listed] | int]


class _Dropping(BaseModel):
    model_config = ConfigDict(extra="allow")
    jsonrpc: Literal["2.0"]
    id: str | int
    method: Literal["m"]
    params: dict[str, _Short | _Quiet]


def _one_method(model: type[BaseModel]) -> Registry:
    """A registry of one request, `m`, whose messages `model` reads."""
    spec = Method("m", "request", frozenset({"client"}), model, _Params, None, "m", False, False, None)
    return Registry({"m": spec}, error=_Params, response=_Params, batching=False)


CONTESTED = [
    {"type": "s", "e": ["x"], "n": "3", "s1": "a", "s2": "b"},  # `n`: a field of the strict member
    {"type": "s", "e": ["x"], "m": "4", "s1": "a", "s2": "b"},  # `m`: one of its extra keys
]
"""Strict mode reads each as a `_Listed`, lax mode (a coercion, more fields set) as a `_Short`."""


@pytest.mark.parametrize(("model", "checked"), [(_Mapped, True), (_Inside, False), (_Dropping, False)])
def test_a_union_of_models_is_checked_only_where_a_path_reaches_its_values(
    model: type[BaseModel], checked: bool
) -> None:
    registry = _one_method(model)
    plain = {"type": "s", "e": ["x"], "m": 4, "s1": "a", "s2": "b"}
    texts = []
    for value in [*CONTESTED, plain]:
        params: Any = {"a": value, "b": {"type": "s", "e": []}}
        texts.append(json.dumps(request("m", [params, 1] if model is _Inside else params)).encode())
    for text in texts * 2:
        assert outcome(registry, text) == outcome(registry, bytearray(text))
    assert [isinstance(read_alone(registry, t), BaseModel) for t in texts] == [False, False, checked]
    if model is _Mapped:
        assert [type(registry.parse_message(t).params["a"]) for t in texts] == [_Short] * 3


class _WithMap(BaseModel):
    model_config = ConfigDict(extra="allow")
    kind: Literal["map"]
    inner: dict[str, _Short | _Listed]


class _WithInt(BaseModel):
    """`inner` a number where the other member has a map of a checked union."""

    model_config = ConfigDict(extra="allow")
    kind: Literal["int"]
    inner: int = 0


class _Outer(BaseModel):
    model_config = ConfigDict(extra="allow")
    jsonrpc: Literal["2.0"]
    id: str | int
    method: Literal["m"]
    params: _WithMap | _WithInt


@pytest.mark.parametrize(
    "params",
    [
        {"kind": "int", "inner": 5},
        {"kind": "int", "inner": "5"},
        {"kind": "int", "x": {"a": CONTESTED[0]}},
        {"kind": "map", "inner": {"a": CONTESTED[0]}},
        {"kind": "map", "inner": {"a": {"type": "s", "e": []}}},
        {"kind": "map", "inner": {}, "count": "3"},
    ],
)
def test_a_union_inside_a_member_of_a_union_of_models_takes_the_full_path(params: Any) -> None:
    registry = _one_method(_Outer)
    text = json.dumps(request("m", params)).encode()
    for _ in range(3):
        assert outcome(registry, text) == outcome(registry, bytearray(text))
    assert not isinstance(read_alone(registry, text), BaseModel)  # decoded, for the full path


_Pair = TypeAliasType("_Pair", "_Short | _Nesting")  # recursive: one union node, kept by reference


class _Nesting(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: Literal["s"]
    e: list[str]
    more: list[_Pair] = []


class _Shared(BaseModel):
    """`_Pair` under `params`, and inside its member `_Nesting` too."""

    model_config = ConfigDict(extra="allow")
    jsonrpc: Literal["2.0"]
    id: str | int
    method: Literal["m"]
    params: dict[str, _Pair]


def test_a_union_inside_a_member_of_itself_takes_the_full_path() -> None:
    registry = _one_method(_Shared)
    inner = {"type": "s", "e": ["x"], "n": "3", "s1": "a", "s2": "b"}
    text = json.dumps(request("m", {"a": {"type": "s", "e": [], "more": [inner]}})).encode()
    for _ in range(3):
        assert outcome(registry, text) == outcome(registry, bytearray(text))
    assert type(registry.parse_message(text).params["a"].more[0]) is _Short
