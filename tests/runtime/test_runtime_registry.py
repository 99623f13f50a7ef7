"""A revision's method registry (runtime/registry.py) on real tables: which JSON-RPC error each bad
message gets, embedded requests, batches, results; and what the JSON-RPC basics read and report."""

from __future__ import annotations

from types import MappingProxyType, ModuleType
from typing import Any

import pytest

from mcpgen.runtime.jsonrpc import ProtocolError, encode, load
from wiring import V25, V26, notification, request


def code_of(registry: Any, message: Any) -> int:
    with pytest.raises(ProtocolError) as error:
        registry.parse_message(message)
    return error.value.code


CALL = {"name": "t", "arguments": {}}


@pytest.mark.parametrize("version", ["2024-11-05", V25])
def test_envelope_errors_are_invalid_request_whatever_the_models_accept(
    linked: dict[str, ModuleType], version: str
) -> None:
    """2024-11-05's models have no `id` or `jsonrpc` at all: the envelope is checked before them."""
    multi = linked["2024-11-05..2026-07-28"]
    registry = multi.REVISIONS[version].registry
    no_id = {"jsonrpc": "2.0", "method": "tools/call", "params": CALL}
    assert code_of(registry, no_id) == -32600
    assert code_of(registry, {**request("tools/call", CALL), "jsonrpc": "1.0"}) == -32600
    assert code_of(registry, {"method": "tools/call", "id": 1, "params": CALL}) == -32600
    assert code_of(registry, {**notification("notifications/initialized"), "id": 3}) == -32600
    assert code_of(registry, {"jsonrpc": "2.0", "id": True, "result": {}}) == -32600
    assert code_of(registry, {"jsonrpc": "2.0", "id": [1], "result": {}}) == -32600
    assert registry.parse_message(request("tools/call", CALL)).params.name == "t"


def test_invalid_params_are_32602_naming_where_also_for_mappings_that_are_not_dicts(
    v25: ModuleType,
) -> None:
    bad = request("tools/call", {"name": 5})
    for message in (bad, MappingProxyType(bad)):
        with pytest.raises(ProtocolError) as error:
            v25.parse_message(message)
        assert error.value.code == -32602
        assert any(e["loc"][-2:] == ["params", "name"] for e in error.value.data)
    assert v25.parse_message(MappingProxyType(request("ping"))).method == "ping"


def test_embedded_requests_are_not_messages(linked: dict[str, ModuleType]) -> None:
    """2026-07-28's elicitation/create travels inside an input-required result, never on its own."""
    v26 = linked[V26]
    params = {
        "mode": "form",
        "message": "?",
        "requestedSchema": {"type": "object", "properties": {}},
    }
    assert v26.METHODS["elicitation/create"].embedded
    registry = v26.REVISIONS[V26].registry
    assert code_of(registry, request("elicitation/create", params)) == -32601
    assert code_of(registry, MappingProxyType(request("elicitation/create", params))) == -32601


def test_batches_only_where_the_revision_has_them(linked: dict[str, ModuleType]) -> None:
    multi = linked["2024-11-05..2026-07-28"]
    assert code_of(multi.REVISIONS[V25].registry, [request("ping")]) == -32600
    batching = multi.REVISIONS["2025-03-26"].registry
    assert [
        m.method for m in batching.parse_message([request("ping"), request("ping", None, 2)])
    ] == [
        "ping",
        "ping",
    ]
    assert code_of(batching, []) == -32600


def test_results_are_parsed_for_requests_only(v25: ModuleType) -> None:
    assert v25.parse_result("tools/call", {"content": []}).content == []
    with pytest.raises(ProtocolError) as notification_result:
        v25.parse_result("notifications/progress", {})
    assert notification_result.value.code == -32601
    with pytest.raises(ProtocolError) as invalid:
        v25.parse_result("tools/call", {"content": 5})
    assert invalid.value.code == -32602 and invalid.value.data[0]["loc"][-1] == "content"


@pytest.mark.parametrize(
    "data", [b'{"a": 1e400}', b'{"a": {"b": [-1e999]}}', b'{"n": ' + b"9" * 400 + b".5}", b"[NaN]"]
)
def test_numbers_no_answer_could_carry_are_parse_errors(data: bytes) -> None:
    with pytest.raises(ProtocolError) as error:
        load(data)
    assert error.value.code == -32700


def test_encode_refuses_what_json_cannot_carry() -> None:
    for value in ({"a": {"b": float("inf")}}, [float("nan")], {"s": "\ud800"}):
        with pytest.raises(ValueError):
            encode(value)
    assert encode({"a": [1.5, "é"]}) == '{"a":[1.5,"é"]}'.encode()


def envelope_method(name: str = "x/do", **fields: Any) -> Any:
    """A `Method` whose message model is a JSON-RPC envelope (`fields` replace, add or, as None, drop its
    members; a callable is given the params model) around params `{"n": int}`: the shapes
    `envelope_params` must tell apart."""
    from typing import Literal

    from pydantic import BaseModel, ConfigDict, create_model

    from mcpgen.runtime.registry import Method

    class Params(BaseModel):
        n: int

    members: dict[str, Any] = {
        "jsonrpc": (Literal["2.0"], ...),
        "id": (str | int, ...),
        "method": (Literal["x/do"], ...),
        "params": (Params, ...),
    }
    config = fields.pop("model_config", ConfigDict(extra="allow"))
    members.update(fields)
    members = {k: v(Params) if callable(v) else v for k, v in members.items() if v is not None}
    message = create_model("Message", __config__=config, **members)
    return Method(name, "request", frozenset({"client"}), message, Params, None, "do", True, False, None)


def test_params_are_read_alone_only_from_a_bare_envelope() -> None:
    """`envelope_params` names the params model only where the message model adds nothing to its params:
    each constraint, member, alias, validator or refusal of its own, or params of another model, or
    optional, or a method it does not name, rules it out."""
    from typing import Literal

    from pydantic import ConfigDict, Field, model_validator

    from mcpgen.runtime.registry import envelope_params

    bare = envelope_method()
    assert envelope_params(bare) is bare.params
    assert envelope_params(envelope_method(jsonrpc=None, id=None)) is not None  # 2024-11-05's shape
    ruled_out = {
        "another method": envelope_method(name="x/other"),
        "optional params": envelope_method(params=lambda params: (params, None)),
        "params of another model": envelope_method(params=(dict[str, Any], ...)),
        "a member of its own": envelope_method(trace=(str, ...)),
        "an integer id only": envelope_method(id=(int, ...)),
        "another jsonrpc": envelope_method(jsonrpc=(Literal["1.0"], ...)),
        "a constrained id": envelope_method(id=(str, Field(min_length=3))),
        "an alias": envelope_method(method=(Literal["x/do"], Field(alias="verb"))),
        "extra members refused": envelope_method(model_config=ConfigDict(extra="forbid")),
    }
    for why, method in ruled_out.items():
        assert envelope_params(method) is None, why

    validated = envelope_method()

    class Checked(validated.message):  # type: ignore[misc, name-defined]
        @model_validator(mode="after")
        def refuse(self) -> Any:
            raise ValueError("never")

    object.__setattr__(validated, "message", Checked)
    assert envelope_params(validated) is None, "a validator of its own"


def test_reading_params_alone_keeps_nothing_for_methods_the_revision_lacks(
    linked: dict[str, ModuleType],
) -> None:
    """Whatever methods a peer names, what `parse_params` keeps is bounded by the revision's methods."""
    registry = linked[V25].methods.REGISTRY
    for n in range(2000):
        assert registry.parse_params(request(f"no/such/{n}", CALL, n)) is None
    assert registry.parse_params(request("tools/call", CALL)).name == "t"
    assert set(registry._params_alone) <= set(registry.methods)
