"""Role derivation: which methods exist and who sends them, from the role unions in every shape they come in."""

from __future__ import annotations

import copy
import importlib
import typing
from pathlib import Path
from types import ModuleType
from typing import Any

import pydantic
import pytest

from mcpgen.errors import SchemaError

from .packages import Wire, generate_package, run
from .schemas import Schema, draft07, mcp_schema, notification, obj, ref, request, result

INITIALIZED = notification("notifications/initialized")


def role_schema() -> Schema:
    """A union of unions, a single-$ref union, an inlined copy, an absent union and an embedded union (draft-07)."""
    schema = mcp_schema(
        {
            "PingRequest": request("ping"),
            "PingResult": result(),
            "ListThingsRequest": request("things/list", obj({"cursor": {"type": "string"}})),
            "ListThingsResult": result(
                {"things": {"type": "array", "items": {"type": "string"}}}, ["things"]
            ),
            "StartChoreRequest": request(
                "chores/start", obj({"chore": {"type": "string"}}, ["chore"]), params_required=True
            ),
            "StartChoreResult": result(),
            "BasicRequests": {"anyOf": [ref("PingRequest"), ref("ListThingsRequest")]},
            "ChoreRequests": {"anyOf": [ref("StartChoreRequest")]},
            "InitializedNotification": INITIALIZED,
            "AskRequest": request(
                "ask/user",
                obj({"question": {"type": "string"}}, ["question"]),
                params_required=True,
            ),
            "AskResult": result({"answer": {"type": "string"}}, ["answer"]),
            "InputRequest": {"anyOf": [ref("AskRequest"), ref("PingRequest")]},
        },
        client_requests=["BasicRequests", "ChoreRequests"],
    )
    schema["$defs"]["ServerRequest"] = ref("PingRequest")
    schema["$defs"]["ClientNotification"] = copy.deepcopy(INITIALIZED)
    return draft07(schema)


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The generated package of the role schema."""
    return generate_package(tmp_path_factory.mktemp("roles"), role_schema(), "fn_roles")


def test_every_method_of_the_role_unions_is_registered(pkg: ModuleType) -> None:
    assert set(pkg.METHODS) == {
        "ping",
        "things/list",
        "chores/start",
        "notifications/initialized",
        "ask/user",
    }
    kinds = {name: (m.kind, sorted(m.senders), m.embedded) for name, m in pkg.METHODS.items()}
    assert kinds == {
        "ping": ("request", ["client", "server"], False),
        "things/list": ("request", ["client"], False),
        "chores/start": ("request", ["client"], False),
        "notifications/initialized": ("notification", ["client"], False),
        "ask/user": ("request", ["server"], True),
    }


def test_methods_carry_their_message_params_and_result_models(pkg: ModuleType) -> None:
    types = pkg.types
    listing, chore, ask = (
        pkg.METHODS["things/list"],
        pkg.METHODS["chores/start"],
        pkg.METHODS["ask/user"],
    )
    assert (listing.message, listing.params, listing.result) == (
        types.ListThingsRequest,
        types.ListThingsRequestParams,
        types.ListThingsResult,
    )
    assert (listing.params_required, chore.params_required) == (False, True)
    assert pkg.METHODS["notifications/initialized"].message is types.InitializedNotification
    assert (ask.message, ask.result) == (types.AskRequest, types.AskResult)
    assert pkg.METHODS["ping"].params is None


@pytest.mark.parametrize(
    ("message", "model"),
    [
        ({"jsonrpc": "2.0", "id": 1, "method": "ping"}, "PingRequest"),
        (
            {"jsonrpc": "2.0", "id": "a", "method": "things/list", "params": {"cursor": "c"}},
            "ListThingsRequest",
        ),
        (
            {"jsonrpc": "2.0", "id": 2, "method": "chores/start", "params": {"chore": "dishes"}},
            "StartChoreRequest",
        ),
        ({"jsonrpc": "2.0", "method": "notifications/initialized"}, "InitializedNotification"),
    ],
)
def test_parse_message_gives_each_method_its_model(
    pkg: ModuleType, message: dict[str, Any], model: str
) -> None:
    parsed = pkg.parse_message(message)
    assert type(parsed) is getattr(pkg.types, model)
    assert parsed.model_dump(mode="json", by_alias=True, exclude_unset=True) == message


def test_an_embedded_request_is_no_message_of_its_own(pkg: ModuleType) -> None:
    with pytest.raises(pkg.ProtocolError) as caught:
        pkg.parse_message(
            {"jsonrpc": "2.0", "id": 1, "method": "ask/user", "params": {"question": "?"}}
        )
    assert caught.value.code == -32601
    message = {"jsonrpc": "2.0", "id": 1, "method": "ask/user", "params": {"question": "?"}}
    with pytest.raises(pydantic.ValidationError):  # nor a member of the Message type parse_message returns
        pydantic.TypeAdapter(pkg.methods.Message).validate_python(message)
    assert type(pkg.parse_result("ask/user", {"answer": "yes"})) is pkg.types.AskResult
    # the server asks inside its results (the client fulfils the input request): no call, a handler
    assert not hasattr(pkg.Server, "ask") and hasattr(pkg.Client, "on_ask")


def test_each_side_handles_what_the_other_sends(pkg: ModuleType) -> None:
    server, client = pkg.Server(), pkg.Client()
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert (
        run(server.handle(ping))
        == run(client.handle(ping))
        == {"jsonrpc": "2.0", "id": 1, "result": {}}
    )
    listing = {"jsonrpc": "2.0", "id": 2, "method": "things/list"}
    assert run(server.handle(listing))["error"]["code"] == -32601, "not overridden yet"
    wrong_way = run(client.handle(listing))["error"]
    assert wrong_way["code"] == -32601 and "not sent to a client" in wrong_way["message"]


def test_an_absent_union_means_no_such_messages(pkg: ModuleType) -> None:
    assert not [m for m in pkg.METHODS.values() if m.kind == "notification" and m.sent_by("server")]
    assert not [name for name in dir(pkg.Server) if name.startswith("notify_")]
    assert (
        run(pkg.Client().handle({"jsonrpc": "2.0", "method": "notifications/initialized"})) is None
    )


def test_a_role_union_mixing_requests_and_a_union_of_requests_keeps_them_all(
    tmp_path: Path,
) -> None:
    schema = mcp_schema(
        {
            "PingRequest": request("ping"),
            "PingResult": result(),
            "ListThingsRequest": request("things/list"),
            "ListThingsResult": result(),
            "StartChoreRequest": request("chores/start"),
            "StartChoreResult": result(),
            "ChoreRequests": {"anyOf": [ref("StartChoreRequest")]},
        },
        client_requests=["PingRequest", "ListThingsRequest", "ChoreRequests"],
    )
    mixed = generate_package(tmp_path, schema, "fn_roles_mixed")
    assert set(mixed.METHODS) == {"ping", "things/list", "chores/start"}


def failure(tmp_path: Path, schema: Schema) -> str:
    """The message of the SchemaError that generating `schema` raises; nothing is written."""
    with pytest.raises(SchemaError) as caught:
        generate_package(tmp_path, schema, "fn_never_written")
    assert not (tmp_path / "fn_never_written").exists()
    return str(caught.value)


def test_a_schema_without_role_unions_is_not_an_mcp_schema(tmp_path: Path) -> None:
    assert "none of the role unions" in failure(
        tmp_path, mcp_schema({"PingRequest": request("ping")})
    )


@pytest.mark.parametrize("missing", ["JSONRPCRequest", "JSONRPCErrorResponse"])
def test_a_schema_without_the_envelope_is_not_an_mcp_schema(tmp_path: Path, missing: str) -> None:
    schema = mcp_schema(
        {"PingRequest": request("ping"), "PingResult": result()}, client_requests=["PingRequest"]
    )
    del schema["$defs"][missing]
    assert "not an MCP schema" in failure(tmp_path, schema)


def test_a_member_without_a_constant_method_is_refused(tmp_path: Path) -> None:
    two = request("a")
    two["properties"]["method"] = {"enum": ["a", "b"], "type": "string"}
    schema = mcp_schema({"TwoRequest": two, "TwoResult": result()}, client_requests=["TwoRequest"])
    assert "TwoRequest in ClientRequest has no constant 'method'" in failure(tmp_path, schema)


def test_a_method_cannot_be_both_a_request_and_a_notification(tmp_path: Path) -> None:
    schema = mcp_schema(
        {"DoRequest": request("do"), "DoResult": result(), "DoNotification": notification("do")},
        client_requests=["DoRequest"],
        server_notifications=["DoNotification"],
    )
    assert "'do' is both a request and a notification" in failure(tmp_path, schema)


def test_a_method_named_like_a_runtime_member_gets_a_trailing_underscore(tmp_path: Path) -> None:
    schema = mcp_schema(
        {"HandleRequest": request("x/handle"), "HandleResult": result({"n": {"type": "integer"}})},
        client_requests=["HandleRequest"],
    )
    pkg = generate_package(tmp_path, schema, "fn_handle_clash")

    class Answering(pkg.Server):  # type: ignore[misc,name-defined]
        async def on_handle_(self, params: Any) -> Any:
            return pkg.types.HandleResult(n=7)

    server, client = Answering(), pkg.Client()
    Wire(pkg, client, server)
    assert pkg.METHODS["x/handle"].python_name == "handle_", "the method table names the call"
    assert pkg.Server.handlers["x/handle"] == "on_handle_", "and the handler, from the same stem"
    assert run(client.handle_()).n == 7, "the call takes the free name"
    reply = run(server.handle({"jsonrpc": "2.0", "id": 1, "method": "x/handle"}))
    assert reply == {"jsonrpc": "2.0", "id": 1, "result": {"n": 7}}, "handle is still the runtime's"


def test_params_that_are_a_union_of_models_get_a_dict_form_per_member(tmp_path: Path) -> None:
    """A params definition that is a union of objects (2025-11-25's elicitation) is typed, in a call,
    as the union or the dict form of any member; each dict form has its member's wire keys."""
    schema = mcp_schema(
        {
            "AskRequest": request("ask", ref("AskParams"), params_required=True),
            "AskParams": {"anyOf": [ref("AskByFormParams"), ref("AskByLinkParams")]},
            "AskByFormParams": obj({"mode": {"const": "form", "type": "string"}, "fields": {"type": "array", "items": {"type": "string"}}}, ["fields"]),
            "AskByLinkParams": obj({"mode": {"const": "url", "type": "string"}, "url": {"type": "string"}}, ["mode", "url"]),
            "AskResult": result({"answer": {"type": "string"}}, ["answer"]),
        },
        client_requests=["AskRequest"],
    )
    pkg = generate_package(tmp_path, schema, "fn_union_params")
    assert (pkg.dicts.AskByFormParams.__required_keys__, pkg.dicts.AskByFormParams.__optional_keys__) == ({"fields"}, {"mode"})
    assert pkg.dicts.AskByLinkParams.__required_keys__ == {"mode", "url"}
    hints = typing.get_type_hints(pkg.Client.ask, globalns=vars(importlib.import_module(f"{pkg.__name__}.client")))
    forms = {pkg.dicts.AskByFormParams, pkg.dicts.AskByLinkParams}
    assert set(typing.get_args(hints["params"])) == {*typing.get_args(pkg.types.AskParams), *forms}
    seen: list[Any] = []

    class Answering(pkg.Server):  # type: ignore[misc,name-defined]
        async def on_ask(self, params: Any) -> Any:
            seen.append(params)
            return pkg.types.AskResult(answer="ok")

    server, client = Answering(), pkg.Client()
    Wire(pkg, client, server)
    assert run(client.ask({"mode": "url", "url": "https://example.com"})).answer == "ok"
    assert isinstance(seen[-1], pkg.types.AskByLinkParams) and seen[-1].url == "https://example.com"
    with pytest.raises(pkg.ProtocolError):
        run(client.ask({"mode": "url"}))  # neither member: refused before it is sent


def test_a_dict_value_that_may_be_one_of_several_models_names_each_model_and_a_mapping_once(tmp_path: Path) -> None:
    schema = mcp_schema(
        {
            "PickRequest": request("pick", ref("PickParams"), params_required=True),
            "PickParams": obj({"choice": {"anyOf": [ref("Apple"), ref("Pear"), {"type": "string"}]}}, ["choice"]),
            "Apple": obj({"kind": {"const": "apple", "type": "string"}}),
            "Pear": obj({"kind": {"const": "pear", "type": "string"}}),
            "PickResult": result(),
        },
        client_requests=["PickRequest"],
    )
    pkg = generate_package(tmp_path, schema, "fn_union_value")
    source = Path(pkg.dicts.__file__).read_text("utf-8")
    declared = " ".join(source.split('"choice": Required[')[1].split("],\n")[0].split())
    assert declared == "types.Apple | types.Pear | str | Mapping[str, Any]"
    hints = typing.get_type_hints(pkg.dicts.PickParams)
    assert {pkg.types.Apple, pkg.types.Pear, str} <= set(typing.get_args(hints["choice"]))
