"""Naming: snake_case fields under their wire alias, collisions, keywords, hoisted inline objects, method names."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pydantic
import pytest

from .oracle import accepts, assert_agrees
from .packages import Wire, generate_package, run
from .schemas import Schema, mcp_schema, notification, obj, ref, request, result
from .session import session_schema

THING_WIRE = {
    "inputSchema": {"type": "object", "properties": {"q": 1}},
    "fooBar": "camel",
    "foo_bar": "snake",
    "class": "keyword",
    "json": 3,
    "model_config": "pydantic's",
    "model_validate_me": "protected",
    "2fa": True,
    "a-b": "dash",
    "_meta": {"k": "v"},
    "items": [{"key": "x"}],
    "shape": {"radius": 2},
    "labels": {"en": {"text": "hello"}},
}

JOB = {"const": "job", "type": "string"}  # a constant every member of a union shares names none of them


def naming_schema() -> Schema:
    """Fields that need renaming, inline objects in every position, awkward definition and method names."""
    thing = obj(
        {
            "inputSchema": obj(
                {"type": {"const": "object", "type": "string"}, "properties": {"type": "object"}},
                ["type"],
            ),
            "fooBar": {"type": "string"},
            "foo_bar": {"type": "string"},
            "class": {"type": "string"},
            "json": {"type": "integer"},
            "model_config": {"type": "string"},
            "model_validate_me": {"type": "string"},
            "2fa": {"type": "boolean"},
            "a-b": {"type": "string"},
            "_meta": {"type": "object", "additionalProperties": {}},
            "items": {"type": "array", "items": obj({"key": {"type": "string"}}, ["key"])},
            "shape": {
                "anyOf": [
                    obj({"radius": {"type": "number"}}, ["radius"]),
                    obj({"side": {"type": "number"}}, ["side"]),
                ]
            },
            "labels": {
                "type": "object",
                "additionalProperties": obj({"text": {"type": "string"}}, ["text"]),
            },
            "state": {
                "anyOf": [
                    obj({"type": JOB, "status": {"const": "working", "type": "string"}}, ["status"]),
                    obj({"type": JOB, "status": {"const": "input_required", "type": "string"}, "asks": {"type": "integer"}}, ["status"]),
                ]
            },
        },
        ["inputSchema"],
    )
    return mcp_schema(
        {
            "Thing": thing,
            "Widget": obj({"options": obj({"speed": {"type": "integer"}}, ["speed"])}),
            "WidgetOptions": obj({"colour": {"type": "string"}}, ["colour"]),
            "my-def": obj({"v": {"type": "string"}}),
            "str": {"type": "integer"},
            "Field": obj({"f": {"type": "string"}}),
            "Any": {"type": "string"},
            "_McpModel": obj({"m": {"type": "string"}}),
            "a/b": obj({"x": {"type": "string"}}, ["x"]),
            "c~d": {"type": "integer"},
            "User": obj({"ab": {"$ref": "#/$defs/a~1b"}, "cd": {"$ref": "#/$defs/c~0d"}}),
            "ListThingsRequest": request("things/list"),
            "ListThingsResult": result(
                {"things": {"type": "array", "items": ref("Thing")}}, ["things"]
            ),
            "FooRequest": request("foo/run"),
            "FooResult": result({"ran": {"type": "boolean"}}),
            "FooNotification": notification("foo/ran"),
            "ThingChangedNotification": notification("notifications/thing/changed"),
        },
        client_requests=["ListThingsRequest", "FooRequest"],
        client_notifications=["FooNotification"],
        server_notifications=["ThingChangedNotification"],
    )


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The generated package of the naming schema."""
    return generate_package(tmp_path_factory.mktemp("naming"), naming_schema(), "fn_naming")


def dump(model: pydantic.BaseModel) -> Any:
    """The wire form of a model: aliases, only what was set."""
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


def test_the_example_is_valid_against_the_schema() -> None:
    assert accepts(naming_schema(), "Thing", THING_WIRE)


def test_fields_are_snake_case_and_dump_under_their_wire_names(pkg: ModuleType) -> None:
    thing = pkg.types.Thing.model_validate(THING_WIRE)
    assert thing.input_schema.type == "object" and thing.meta == {"k": "v"}
    assert dump(thing) == THING_WIRE
    assert thing.model_extra == {}, "every wire key is a declared field, none is left over as extra"


def test_python_names_validate_too(pkg: ModuleType) -> None:
    thing = pkg.types.Thing(input_schema={"type": "object"}, class_="k", f_2fa=False, meta={})
    assert dump(thing) == {
        "inputSchema": {"type": "object"},
        "class": "k",
        "2fa": False,
        "_meta": {},
    }


def test_colliding_keyword_and_reserved_names_each_keep_their_key(pkg: ModuleType) -> None:
    thing = pkg.types.Thing.model_validate(THING_WIRE)
    # a wire name that is already a Python name keeps it; the camelCase key yields
    assert (thing.foo_bar, thing.foo_bar_) == ("snake", "camel")
    assert (thing.class_, thing.json_, thing.model_config_) == ("keyword", 3, "pydantic's")
    assert thing.f_model_validate_me_ == "protected"
    assert (thing.f_2fa, thing.a_b) == (True, "dash")
    assert callable(thing.model_dump) and isinstance(pkg.types.Thing.model_config, dict)


def test_a_wire_key_equal_to_another_fields_python_name_is_read_once(pkg: ModuleType) -> None:
    wire = {"inputSchema": {"type": "object"}, "foo_bar": "snake"}
    assert accepts(naming_schema(), "Thing", wire)
    assert dump(pkg.types.Thing.model_validate(wire)) == wire


def test_inline_objects_are_hoisted_under_names_from_their_position(pkg: ModuleType) -> None:
    types = pkg.types
    thing = types.Thing.model_validate(THING_WIRE)
    assert type(thing.input_schema) is types.ThingInputSchema
    assert type(thing.items[0]) is types.ThingItemsItem and thing.items[0].key == "x"
    assert type(thing.shape) is types.ThingShapeVariantA and thing.shape.radius == 2
    assert (
        type(types.Thing.model_validate({**THING_WIRE, "shape": {"side": 1}}).shape)
        is types.ThingShapeVariantB
    )
    assert type(thing.labels["en"]) is types.ThingLabelsValue


def test_inline_union_members_are_named_after_the_constant_that_tags_them(pkg: ModuleType) -> None:
    types = pkg.types
    working = types.Thing.model_validate({**THING_WIRE, "state": {"status": "working"}})
    asking = types.Thing.model_validate({**THING_WIRE, "state": {"status": "input_required", "asks": 2}})
    assert type(working.state) is types.ThingStateWorking
    assert type(asking.state) is types.ThingStateInputRequired and asking.state.asks == 2
    for state in ({"status": "working"}, {"status": "done"}, {"status": "input_required", "asks": "x"}):
        assert_agrees(types, naming_schema(), "Thing", {**THING_WIRE, "state": state})


def test_a_hoisted_name_never_takes_a_definition_name(pkg: ModuleType) -> None:
    types = pkg.types
    assert types.WidgetOptions.model_validate({"colour": "red"}).colour == "red"
    with pytest.raises(pydantic.ValidationError):
        types.WidgetOptions.model_validate({"speed": 1})
    widget = types.Widget.model_validate({"options": {"speed": 3}})
    assert type(widget.options) is types.WidgetOptions_ and widget.options.speed == 3


def test_definitions_keep_their_names_unless_python_cannot(pkg: ModuleType) -> None:
    types = pkg.types
    assert types.MyDef.model_validate({"v": "x"}).v == "x"
    assert pydantic.TypeAdapter(types.Str).validate_python(3) == 3
    assert str(5) == "5", "a definition named `str` does not shadow the builtin"
    assert types.Field.model_validate({"f": "x"}).f == "x"
    assert pydantic.TypeAdapter(types.Any).validate_python("s") == "s"
    with pytest.raises(pydantic.ValidationError):
        pydantic.TypeAdapter(types.Any).validate_python(1)
    assert types._McpModel.model_validate({"m": "x"}).m == "x"
    user = types.User.model_validate({"ab": {"x": "y"}, "cd": 4})
    assert (type(user.ab), user.cd) == (types.AB, 4)
    assert_agrees(types, naming_schema(), "User", {"m": 5, "model_config": 6})
    assert set(types.__all__) >= {
        "MyDef",
        "Str",
        "Field",
        "Any",
        "_McpModel",
        "AB",
        "CD",
        "Thing",
        "ThingInputSchema",
    }


def test_definitions_named_like_imports_do_not_shadow_them(pkg: ModuleType) -> None:
    wire = {"things": [THING_WIRE], "_meta": {"n": 1, "s": [None]}}
    result = pkg.types.ListThingsResult.model_validate(wire)
    assert result.meta == {"n": 1, "s": [None]} and dump(result) == wire


def test_definitions_and_hoisted_models_named_like_builtins_do_not_shadow_them(tmp_path: Any) -> None:
    """The base model calls `isinstance`, `tuple`, `super` and `enumerate` at import: a class under one
    of those names, or under any other builtin's, would break every model after it."""
    builtin_named = {name: obj({"a": {"type": "string"}}) for name in ("isinstance", "tuple", "super", "enumerate")}
    schema = mcp_schema(
        {
            **builtin_named,
            "Type": obj({"error": obj({"code": {"type": "integer"}}, ["code"])}),
            "After": obj({"b": {"type": "integer"}}, ["b"]),
            "PingRequest": request("ping"),
        },
        client_requests=["PingRequest"],
    )
    types = generate_package(tmp_path, schema, "fn_builtin_names").types
    for name in builtin_named:
        assert name not in vars(types), name
    for model in (types.Isinstance, types.Tuple, types.Super, types.Enumerate):
        assert model.model_validate({"a": "x"}).a == "x"
    assert "TypeError" not in vars(types)
    assert type(types.Type.model_validate({"error": {"code": 1}}).error) is types.TypeError_
    assert types.After(b=2).b == 2


def test_method_names_come_from_definition_names(pkg: ModuleType) -> None:
    listing = pkg.METHODS["things/list"]
    assert listing.python_name == "list_things"
    assert callable(pkg.Server.on_list_things) and callable(pkg.Client.list_things)
    assert callable(pkg.Server.notify_thing_changed) and callable(pkg.Client.on_thing_changed)


def test_a_request_and_a_notification_of_the_same_name_stay_apart(pkg: ModuleType) -> None:
    request_name = pkg.METHODS["foo/run"].python_name
    note_name = pkg.METHODS["foo/ran"].python_name
    assert request_name != note_name
    calls: list[str] = []

    async def ran(self: Any, params: Any) -> Any:
        calls.append("foo/ran")

    async def run_foo(self: Any, params: Any) -> Any:
        calls.append("foo/run")
        return pkg.types.FooResult(ran=True)

    server = type("Foo", (pkg.Server,), {f"on_{request_name}": run_foo, f"on_{note_name}": ran})()
    reply = run(server.handle({"jsonrpc": "2.0", "id": 1, "method": "foo/run"}))
    assert reply == {"jsonrpc": "2.0", "id": 1, "result": {"ran": True}}
    assert run(server.handle({"jsonrpc": "2.0", "method": "foo/ran"})) is None
    assert calls == ["foo/run", "foo/ran"]


def clashing_schema() -> Schema:
    """The session schema plus methods whose names are runtime members: a client-sent `client/info`
    (`ClientBase.client_info`), a server-sent `server/info` (`ServerBase.server_info`) and a `handle`
    notification both sides send (`handle` is every peer's)."""
    schema = session_schema(batching=False)
    defs = schema["$defs"]
    defs["ClientInfoRequest"] = request("client/info")
    defs["ClientInfoResult"] = result({"note": {"type": "string"}})
    defs["ServerInfoRequest"] = request("server/info")
    defs["ServerInfoResult"] = result({"note": {"type": "string"}})
    defs["HandleNotification"] = notification("notifications/handle")
    defs["ClientRequest"]["anyOf"].append(ref("ClientInfoRequest"))
    defs["ServerRequest"]["anyOf"].append(ref("ServerInfoRequest"))
    for union in ("ClientNotification", "ServerNotification"):
        defs[union]["anyOf"].append(ref("HandleNotification"))
    return schema


@pytest.fixture(scope="module")
def clashing(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The generated package of the clashing schema."""
    return generate_package(tmp_path_factory.mktemp("clashing"), clashing_schema(), "fn_clashing")


def test_the_method_table_names_the_generated_call_and_handler(clashing: ModuleType) -> None:
    methods = clashing.METHODS
    assert methods["client/info"].python_name == "client_info_"
    assert methods["server/info"].python_name == "server_info_"
    assert methods["notifications/handle"].python_name == "handle"  # `notify_handle` and `on_handle` are free
    for wire, method in methods.items():
        for side, cls, other in (("client", clashing.Client, clashing.Server), ("server", clashing.Server, clashing.Client)):
            call = method.python_name if method.kind == "request" else f"notify_{method.python_name}"
            if method.sent_by(side) and not method.embedded:
                assert callable(getattr(cls, call)), (wire, side)
                assert other.handlers[wire] == f"on_{method.python_name}", (wire, side)
    # The runtime members keep their meaning.
    client = type("C", (clashing.Client,), {"name": "probe", "version": "1"})()
    assert client.client_info() == {"name": "probe", "version": "1"}


def test_the_renamed_calls_send_their_methods(clashing: ModuleType) -> None:
    methods = clashing.METHODS
    heard: list[str] = []

    class Server(clashing.Server):
        name, version = "s", "1"

    async def answer(self: Any, params: Any) -> Any:
        heard.append("client/info")
        return clashing.types.ClientInfoResult(note="from server")

    setattr(Server, f"on_{methods['client/info'].python_name}", answer)

    class Client(clashing.Client):
        name, version = "c", "1"

    async def reply(self: Any, params: Any) -> Any:
        heard.append("server/info")
        return clashing.types.ServerInfoResult(note="from client")

    setattr(Client, f"on_{methods['server/info'].python_name}", reply)

    async def scenario() -> tuple[Any, Any]:
        server, client = Server(), Client()
        Wire(clashing, client, server)
        await client.start_session()
        asked = await getattr(client, methods["client/info"].python_name)()
        told = await getattr(server, methods["server/info"].python_name)()
        return asked, told

    asked, told = run(scenario())
    assert (asked.note, told.note) == ("from server", "from client")
    assert heard == ["client/info", "server/info"]
