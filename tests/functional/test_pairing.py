"""Pairing: each request's result from `<X>ResultResponse`, then `<X>Result`, then the shipped table, then `--pair`."""

from __future__ import annotations

import typing
from pathlib import Path
from types import ModuleType

import pytest

from mcpgen.errors import SchemaError

from mcpgen.commands.generate import GenerateConfig, generate
from shared import load_package

from .packages import REVISION, generate_package, headers, pinned, schema_bytes
from .schemas import Schema, const, mcp_schema, obj, ref, request, result

STRING = {"type": "string"}
PAIRS = (("SpinRequest", "SpinOutcome"), ("SubscribeRequest", "SubscribeOutcome"))


def response(result_schema: Schema) -> Schema:
    """A `<X>ResultResponse` definition whose `result` is `result_schema`."""
    return obj(
        {"jsonrpc": const("2.0"), "id": ref("RequestId"), "result": result_schema},
        ["jsonrpc", "id", "result"],
    )


def pairing_schema() -> Schema:
    """Requests paired by each rule, with decoys that a lower-ranked rule would pick."""
    definitions = {
        "GetThingRequest": request("things/get"),
        "GetThingResultResponse": response(ref("ThingPayload")),
        "ThingPayload": result({"payload": STRING}, ["payload"]),
        "GetThingResult": result({"decoy": STRING}, ["decoy"]),
        "RunRequest": request("run"),
        "RunResultResponse": response({"anyOf": [ref("InputRequiredResult"), ref("RunResult")]}),
        "InputRequiredResult": obj({"resultType": const("input_required")}, ["resultType"]),
        "RunResult": obj(
            {"resultType": const("complete"), "ran": {"type": "boolean"}}, ["resultType", "ran"]
        ),
        "FetchRequest": request("fetch"),
        "FetchResultResponse": response(
            {"anyOf": [ref("InputRequiredResult"), ref("FetchPayload")]}
        ),
        "FetchPayload": obj(
            {"resultType": const("complete"), "data": STRING}, ["resultType", "data"]
        ),
        "PickRequest": request("pick"),
        "PickResultResponse": response({"anyOf": [ref("OtherResult"), ref("PickResult")]}),
        "OtherResult": result({"other": STRING}, ["other"]),
        "PickResult": result({"picked": STRING}, ["picked"]),
        "ListResourcesRequest": request("resources/list"),
        "ListResourcesResult": result({"resources": {"type": "array"}}, ["resources"]),
        "ListResourceTemplatesRequest": request("resources/templates/list"),
        "ListResourceTemplatesResult": result(
            {"resourceTemplates": {"type": "array"}}, ["resourceTemplates"]
        ),
        "PingRequest": request("ping"),
        "UnsubscribeRequest": request("resources/unsubscribe"),
        "UnsubscribeResult": result({"gone": {"type": "boolean"}}, ["gone"]),
        "SubscribeRequest": request("resources/subscribe"),
        "SubscribeOutcome": result({"watching": {"type": "boolean"}}, ["watching"]),
        "SpinRequest": request("widgets/spin"),
        "SpinOutcome": result({"rpm": {"type": "number"}}, ["rpm"]),
    }
    requests = [name for name in definitions if name.endswith("Request")]
    return mcp_schema(definitions, client_requests=requests)


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The generated package of the pairing schema, with two `--pair` options."""
    return generate_package(
        tmp_path_factory.mktemp("pairing"), pairing_schema(), "fn_pairing", PAIRS
    )


@pytest.mark.parametrize(
    ("method", "expected", "wire"),
    [
        ("things/get", "ThingPayload", {"payload": "p"}),
        ("run", "RunResult", {"resultType": "complete", "ran": True}),
        ("fetch", "FetchPayload", {"resultType": "complete", "data": "d"}),
        ("pick", "PickResult", {"picked": "p"}),
        ("resources/list", "ListResourcesResult", {"resources": []}),
        ("resources/templates/list", "ListResourceTemplatesResult", {"resourceTemplates": []}),
        ("ping", "EmptyResult", {}),
        ("resources/unsubscribe", "UnsubscribeResult", {"gone": True}),
        ("resources/subscribe", "SubscribeOutcome", {"watching": True}),
        ("widgets/spin", "SpinOutcome", {"rpm": 33}),
    ],
)
def test_each_request_gets_the_result_its_rule_gives(
    pkg: ModuleType, method: str, expected: str, wire: dict
) -> None:
    model = getattr(pkg.types, expected)
    assert pkg.METHODS[method].result is model
    parsed = pkg.parse_result(method, wire)
    assert isinstance(parsed, model)
    assert parsed.model_dump(mode="json", by_alias=True, exclude_unset=True) == wire


@pytest.mark.parametrize(
    ("method", "wrong"),
    [
        ("things/get", {"decoy": "d"}),
        ("resources/list", {"resourceTemplates": []}),
        ("resources/templates/list", {"resources": []}),
        ("resources/unsubscribe", {}),
        ("widgets/spin", {}),
    ],
)
def test_a_result_of_another_request_is_rejected(pkg: ModuleType, method: str, wrong: dict) -> None:
    with pytest.raises(pkg.ProtocolError) as caught:
        pkg.parse_result(method, wrong)
    assert caught.value.code == -32602


def test_a_result_response_union_admits_every_member(pkg: ModuleType) -> None:
    waiting = pkg.parse_result("run", {"resultType": "input_required"})
    assert type(waiting) is pkg.types.InputRequiredResult
    other = pkg.parse_result("pick", {"other": "o"})
    assert type(other) is pkg.types.OtherResult


def test_a_typed_call_is_annotated_with_every_member_of_its_result_union(pkg: ModuleType) -> None:
    returns = typing.get_type_hints(pkg.Client.pick)["return"]
    assert set(typing.get_args(returns)) == {pkg.types.OtherResult, pkg.types.PickResult}
    assert typing.get_type_hints(pkg.Client.spin)["return"] is pkg.types.SpinOutcome


def test_pairings_from_the_command_line_are_recorded_in_every_file(pkg: ModuleType) -> None:
    files = headers(pkg)
    line = "# Pairings: SpinRequest=SpinOutcome, SubscribeRequest=SubscribeOutcome\n"
    assert files and all(line in h for h in files)


def test_a_released_revision_with_a_request_without_a_result_fails_naming_it(tmp_path: Path) -> None:
    with (
        pinned(pairing_schema()),
        pytest.raises(
            SchemaError,
            match=r"SpinRequest \(widgets/spin\).*--pair SpinRequest=<result definition>",
        ),
    ):
        generate_package(tmp_path, pairing_schema(), "fn_never_written")
    assert not (tmp_path / "fn_never_written").exists()


def test_a_draft_pairs_a_request_without_a_result_with_the_base_result_and_says_so(
    tmp_path: Path,
) -> None:
    schema_file = tmp_path / "schema.json"
    schema_file.write_bytes(schema_bytes(pairing_schema()))
    config = GenerateConfig(
        schema_file=schema_file, revision=REVISION, output=tmp_path / "fn_draft", package="fn_draft"
    )
    [written] = generate(config)
    assert any(w.startswith("SpinRequest has no result in the schema") for w in written.warnings)
    pkg = load_package(tmp_path / "fn_draft", "fn_draft")
    assert pkg.METHODS["widgets/spin"].result is pkg.types.Result
    kept = pkg.parse_result("widgets/spin", {"rpm": 3, "other": [1]})
    assert kept.model_dump(mode="json", by_alias=True, exclude_unset=True) == {"rpm": 3, "other": [1]}


def test_a_pair_naming_an_unknown_definition_fails(tmp_path: Path) -> None:
    with pytest.raises(SchemaError, match="no definition NoSuchResult"):
        generate_package(
            tmp_path, pairing_schema(), "fn_never_written", (("SpinRequest", "NoSuchResult"),)
        )
