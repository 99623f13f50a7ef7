"""Multi-revision packages from two tiny revisions: negotiation, version gates, every conversion rule, both policies.

OLD is the session schema; NEW differs from it in one way per rule: a content block type OLD lacks (a list item
to drop), an enum value OLD lacks in an optional field (a field to drop), a result field only NEW has (a strip),
a constant only OLD requires (a constant fill), a `ttlMs` only NEW requires (a documented fill) and a method only
NEW has (a version gate). The oracle is jsonschema on the two tiny schemas.
"""

from __future__ import annotations

import copy
import json
import logging
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from mcpgen.errors import SchemaError
from mcpgen.commands.generate import PackageRequest, package_files
from mcpgen.emit.output import write_package
from mcpgen.inputs.sources import SchemaSource, sha256_of
from shared import load_package

from .oracle import accepts
from .packages import run, schema_bytes
from .schemas import Schema, const, obj, ref, request, result
from .session import session_schema

OLD, NEW = "2099-01-01", "2099-06-01"
STRING = {"type": "string"}


def old_schema() -> Schema:
    """The session schema, with a tool `mode` enum and a `kind` constant every tool result carries."""
    schema = session_schema(batching=False)
    defs = schema["$defs"]
    defs["Tool"]["properties"]["mode"] = {"enum": ["a", "b"], "type": "string"}
    defs["CallToolResult"]["properties"]["kind"] = const("v1")
    defs["CallToolResult"]["required"].append("kind")
    return schema


def new_schema() -> Schema:
    """OLD plus a link content block, a third mode, a result note, a required ttlMs and `things/new`; no `kind`."""
    schema = copy.deepcopy(old_schema())
    defs = schema["$defs"]
    defs["LinkContent"] = obj({"type": const("link"), "uri": STRING}, ["type", "uri"])
    defs["ContentBlock"] = {"anyOf": [ref("TextContent"), ref("LinkContent")]}
    call = defs["CallToolResult"]
    call["properties"]["content"]["items"] = ref("ContentBlock")
    call["properties"]["note"] = STRING
    del call["properties"]["kind"]
    call["required"].remove("kind")
    defs["Tool"]["properties"]["mode"]["enum"].append("c")
    listing = defs["ListToolsResult"]
    listing["properties"]["ttlMs"] = {"type": "integer"}
    listing["required"].append("ttlMs")
    defs["NewThingRequest"] = request("things/new")
    defs["NewThingResult"] = result({"made": STRING}, ["made"])
    defs["ClientRequest"]["anyOf"].append(ref("NewThingRequest"))
    return schema


SCHEMAS = {OLD: old_schema(), NEW: new_schema()}


def generate_multi(
    directory: Path, schemas: dict[str, Schema], alias: str, surface: str
) -> ModuleType:
    """One package speaking every revision of `schemas` (drafts, read as bytes), surface `surface`, imported."""
    sources = tuple(
        SchemaSource(
            rev, schema_bytes(s), sha256_of(schema_bytes(s)), f"<{rev}>", pinned=False
        )
        for rev, s in sorted(schemas.items())
    )
    write_package(package_files(PackageRequest(sources, surface)), directory / alias)
    return load_package(directory / alias, alias)


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """OLD and NEW in one package, handlers on NEW's types."""
    return generate_multi(tmp_path_factory.mktemp("multi"), SCHEMAS, "fn_multi", NEW)


@pytest.fixture(scope="module")
def old_surface(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """OLD and NEW in one package, handlers on OLD's types."""
    return generate_multi(
        tmp_path_factory.mktemp("multi_old"), SCHEMAS, "fn_multi_old", OLD
    )


def tools(pkg: ModuleType, **attributes: Any) -> Any:
    """A server on `pkg`'s surface answering a text and a link, a tool of mode `c`, and `things/new`."""
    t = pkg.types

    async def on_list_tools(self: Any, params: Any) -> Any:
        fields = {"ttlMs": 1000} if "ttl_ms" in t.ListToolsResult.model_fields else {}
        newest = "c" if "LinkContent" in dir(t) else "b"
        return t.ListToolsResult(
            tools=[t.Tool(name="x", mode=newest), t.Tool(name="y", mode="a")], **fields
        )

    async def on_call_tool(self: Any, params: Any) -> Any:
        if "LinkContent" not in dir(t):
            return t.CallToolResult(content=[t.TextContent(text=params.name)])
        blocks = [t.TextContent(text=params.name), t.LinkContent(uri="file:///x")]
        return t.CallToolResult(content=blocks, note="only NEW has notes")

    async def on_new_thing(self: Any, params: Any) -> Any:
        return t.NewThingResult(made="it")

    handlers = {
        "on_list_tools": on_list_tools,
        "on_call_tool": on_call_tool,
        "on_new_thing": on_new_thing,
    }
    return type(
        "Tools", (pkg.Server,), {"name": "s", "version": "1", **handlers, **attributes}
    )()


def initialize(version: str) -> dict[str, Any]:
    """An `initialize` request asking for `version`."""
    params = {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"},
    }
    return {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}


def session(server: Any, version: str) -> dict[str, Any]:
    """Open a session of `version` on `server`; the initialize result."""
    answer = run(server.handle(initialize(version)))
    run(server.handle({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    return answer["result"]


def call(
    server: Any, method: str, params: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One request through `server.handle`; the JSON-RPC response."""
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": method,
        **({"params": params} if params else {}),
    }
    reply: dict[str, Any] = run(server.handle(message))
    return json.loads(json.dumps(reply))


@pytest.mark.parametrize(
    ("asked", "answered"), [(OLD, OLD), (NEW, NEW), ("1999-01-01", NEW)]
)
def test_initialize_answers_the_asked_version_when_spoken_else_the_newest(
    pkg: ModuleType, asked: str, answered: str
) -> None:
    assert pkg.SUPPORTED_VERSIONS == (OLD, NEW) and pkg.negotiate(asked) == answered
    assert session(tools(pkg), asked)["protocolVersion"] == answered


def test_a_method_only_the_newer_revision_has_is_gated_by_the_session(
    pkg: ModuleType,
) -> None:
    old, new = tools(pkg), tools(pkg)
    session(old, OLD)
    session(new, NEW)
    assert call(old, "things/new")["error"]["code"] == -32601
    assert call(new, "things/new")["result"] == {"made": "it"}


def test_a_result_converted_for_the_older_revision_is_valid_there(
    pkg: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    server = tools(pkg)
    session(server, OLD)
    answer = call(server, "tools/call", {"name": "hi"})["result"]
    # the link is a list item OLD cannot carry: dropped; the note only NEW defines: stripped;
    # OLD's constant `kind`: filled from the schema
    assert answer == {"content": [{"type": "text", "text": "hi"}], "kind": "v1"}
    assert accepts(SCHEMAS[OLD], "CallToolResult", answer)
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(
        "tools/call" in w and "/content/1" in w and OLD in w for w in warned
    ), warned


def test_the_newer_revision_gets_the_result_unchanged(pkg: ModuleType) -> None:
    server = tools(pkg)
    session(server, NEW)
    answer = call(server, "tools/call", {"name": "hi"})["result"]
    link = {"type": "link", "uri": "file:///x"}
    assert answer == {
        "content": [{"type": "text", "text": "hi"}, link],
        "note": "only NEW has notes",
    }
    assert accepts(SCHEMAS[NEW], "CallToolResult", answer)


def test_an_enum_value_the_older_revision_lacks_drops_the_optional_field(
    pkg: ModuleType,
) -> None:
    server = tools(pkg)
    session(server, OLD)
    answer = call(server, "tools/list")["result"]
    assert answer == {"tools": [{"name": "x"}, {"name": "y", "mode": "a"}]}
    assert accepts(SCHEMAS[OLD], "ListToolsResult", answer)


def test_strict_refuses_what_drop_would_drop(
    pkg: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    server = tools(pkg, conversion_policy="strict")
    session(server, OLD)
    error = call(server, "tools/call", {"name": "hi"})["error"]
    assert error == {"code": -32603, "message": "Internal error"}
    assert any(
        "/content/1" in r.getMessage()
        for r in caplog.records
        if r.levelno == logging.ERROR
    )
    assert call(server, "ping")["result"] == {}, "the session goes on"


def test_a_required_field_only_the_target_has_gets_the_documented_default(
    old_surface: ModuleType,
) -> None:
    server = tools(old_surface)
    session(server, NEW)
    answer = call(server, "tools/list")["result"]
    assert answer["ttlMs"] == 0 and accepts(SCHEMAS[NEW], "ListToolsResult", answer)
    generous = tools(old_surface, result_defaults={"ttlMs": 60_000})
    session(generous, NEW)
    assert call(generous, "tools/list")["result"]["ttlMs"] == 60_000


def test_requests_of_the_older_revision_reach_handlers_as_surface_types(
    pkg: ModuleType,
) -> None:
    seen: list[Any] = []

    async def on_call_tool(self: Any, params: Any) -> Any:
        seen.append(params)
        return pkg.types.CallToolResult(content=[])

    server = tools(pkg, on_call_tool=on_call_tool)
    session(server, OLD)
    call(server, "tools/call", {"name": "n", "arguments": {"k": 1}})
    assert type(seen[0]) is pkg.types.CallToolRequestParams and seen[0].arguments == {
        "k": 1
    }


def test_a_typed_call_the_session_revision_lacks_raises_without_sending(
    pkg: ModuleType, tmp_path: Path
) -> None:
    only_old = generate_multi(tmp_path, {OLD: SCHEMAS[OLD]}, "fn_only_old", OLD)
    server = tools(only_old)
    sent: list[dict[str, Any]] = []

    class Channel:
        async def request(self, method: str, params: Any) -> Any:
            message = {
                "jsonrpc": "2.0",
                "id": len(sent),
                "method": method,
                **({"params": params} if params else {}),
            }
            sent.append(message)
            reply = await server.handle(json.loads(json.dumps(message)))
            if "error" in reply:
                raise pkg.ProtocolError(
                    reply["error"]["code"], reply["error"]["message"]
                )
            return reply["result"]

        async def notify(self, method: str, params: Any) -> None:
            await server.handle(
                {
                    "jsonrpc": "2.0",
                    "method": method,
                    **({"params": params} if params else {}),
                }
            )

    client = pkg.Client()
    client.attach(Channel())
    assert run(client.start_session()).protocol_version == OLD
    with pytest.raises(pkg.ProtocolError) as error:
        run(client.new_thing())
    assert error.value.code == -32601
    assert [m["method"] for m in sent] == [
        "initialize"
    ], "nothing was sent for the gated call"
    listed = run(client.list_tools())
    assert [tool.mode for tool in listed.tools] == ["b", "a"]


def test_a_difference_no_rule_covers_fails_generation_naming_it(tmp_path: Path) -> None:
    changed = copy.deepcopy(SCHEMAS[NEW])
    changed["$defs"]["Tool"]["properties"]["name"] = {"type": "integer"}
    with pytest.raises(
        SchemaError,
        match=r"tools/list result tools\.\*\.name: a number in 2099-06-01 is a string in 2099-01-01",
    ):
        generate_multi(
            tmp_path, {OLD: SCHEMAS[OLD], NEW: changed}, "fn_never_written", NEW
        )
    assert not (tmp_path / "fn_never_written").exists()


def test_a_fill_never_overwrites_a_value_the_result_has(
    old_surface: ModuleType,
) -> None:
    async def on_list_tools(self: Any, params: Any) -> Any:
        return old_surface.types.ListToolsResult(tools=[], ttlMs=5)

    for attributes in ({}, {"result_defaults": {"ttlMs": 60_000}}):
        server = tools(old_surface, on_list_tools=on_list_tools, **attributes)
        session(server, NEW)
        answer = call(server, "tools/list")["result"]
        assert answer == {"tools": [], "ttlMs": 5} and accepts(
            SCHEMAS[NEW], "ListToolsResult", answer
        )


def test_versions_are_listed_newest_first(pkg: ModuleType) -> None:
    assert pkg.revisions.newest_first(pkg.SUPPORTED_VERSIONS) == [NEW, OLD]
