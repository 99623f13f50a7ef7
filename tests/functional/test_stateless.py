"""Stateless sessions (as in 2026-07-28): `server/discover`, `_meta` on every request, input-required results."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from .oracle import accepts
from .packages import Wire, generate_package, run
from .schemas import Schema, const, mcp_schema, obj, ref, request

STRING = {"type": "string"}
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
UNSUPPORTED = -32099


def stateless_schema() -> Schema:
    """Discovery, a request-meta object every request carries, a tool call that may ask for input first."""
    meta = {"_meta": ref("RequestMetaObject")}
    return mcp_schema(
        {
            "Implementation": obj({"name": STRING, "version": STRING}, ["name", "version"]),
            "ServerCapabilities": obj({"tools": obj({"listChanged": {"type": "boolean"}})}),
            "ClientCapabilities": obj({"elicitation": obj({})}),
            "RequestMetaObject": obj(
                {
                    VERSION_KEY: STRING,
                    "io.modelcontextprotocol/clientCapabilities": ref("ClientCapabilities"),
                    "io.modelcontextprotocol/clientInfo": ref("Implementation"),
                },
                [VERSION_KEY],
            ),
            "RequestParams": obj(meta, ["_meta"]),
            "DiscoverRequest": request("server/discover", "RequestParams", params_required=True),
            "DiscoverResult": obj(
                {
                    "_meta": obj({"io.modelcontextprotocol/serverInfo": ref("Implementation")}),
                    "supportedVersions": {"type": "array", "items": STRING},
                    "capabilities": ref("ServerCapabilities"),
                    "cacheScope": {"enum": ["private", "public"], "type": "string"},
                    "ttlMs": {"type": "integer"},
                    "resultType": const("complete"),
                    "instructions": STRING,
                },
                ["supportedVersions", "capabilities", "cacheScope", "ttlMs", "resultType"],
            ),
            "CallToolRequest": request(
                "tools/call", obj({**meta, "name": STRING}, ["_meta", "name"]), params_required=True
            ),
            "CallToolResult": obj(
                {"resultType": const("complete"), "text": STRING}, ["resultType", "text"]
            ),
            "InputRequiredResult": obj(
                {
                    "resultType": const("input_required"),
                    "requestState": STRING,
                    "inputRequests": {
                        "type": "object",
                        "additionalProperties": ref("InputRequest"),
                    },
                },
                ["resultType"],
            ),
            "CallToolResultResponse": obj(
                {
                    "jsonrpc": const("2.0"),
                    "id": ref("RequestId"),
                    "result": {"anyOf": [ref("InputRequiredResult"), ref("CallToolResult")]},
                },
                ["jsonrpc", "id", "result"],
            ),
            "ElicitRequest": request(
                "elicitation/create", obj({"message": STRING}, ["message"]), params_required=True
            ),
            "ElicitResult": obj({"action": STRING}, ["action"]),
            "InputRequest": {"anyOf": [ref("ElicitRequest")]},
            "UnsupportedProtocolVersionError": obj(
                {
                    "jsonrpc": const("2.0"),
                    "id": ref("RequestId"),
                    "error": {
                        "allOf": [
                            ref("Error"),
                            obj(
                                {
                                    "code": {"const": UNSUPPORTED, "type": "integer"},
                                    "data": obj(
                                        {
                                            "requested": STRING,
                                            "supported": {"type": "array", "items": STRING},
                                        },
                                        ["requested", "supported"],
                                    ),
                                },
                                ["code", "data"],
                            ),
                        ]
                    },
                },
                ["jsonrpc", "error"],
            ),
        },
        client_requests=["DiscoverRequest", "CallToolRequest"],
    )


class Tools:
    """A tool that asks for input until told who is asking."""

    seen: list[Any]

    async def on_call_tool(self, params: Any) -> Any:
        self.seen.append(params)
        if params.name == "ask":
            answers = (params.model_extra or {}).get("inputResponses")
            if answers:
                return {"resultType": "complete", "text": answers["who"]["action"]}
            return {
                "resultType": "input_required",
                "requestState": "round-1",
                "inputRequests": {
                    "who": {
                        "jsonrpc": "2.0",
                        "id": 1,
                        "method": "elicitation/create",
                        "params": {"message": "Who?"},
                    }
                },
            }
        return {"resultType": "complete", "text": params.name}


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The generated package of the stateless schema."""
    return generate_package(
        tmp_path_factory.mktemp("stateless"), stateless_schema(), "fn_stateless"
    )


def connected(pkg: ModuleType) -> tuple[Any, Any, Wire]:
    """A server with the Tools handlers and a plain client, wired together."""
    server = type("ToolServer", (Tools, pkg.Server), {"name": "s", "version": "1"})()
    server.seen = []
    client = type("Plain", (pkg.Client,), {"name": "c", "version": "2"})()
    return server, client, Wire(pkg, client, server)


def test_discovery_is_the_handshake(pkg: ModuleType) -> None:
    server, client, wire = connected(pkg)
    found = run(client.start_session())
    assert isinstance(found, pkg.types.DiscoverResult) and client.peer_info == found
    assert found.model_dump(mode="json", by_alias=True, exclude_unset=True) == {
        "supportedVersions": ["2099-01-01"],
        "capabilities": {"tools": {}},
        "cacheScope": "private",
        "ttlMs": 0,
        "resultType": "complete",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}},
    }
    assert [m["method"] for m in wire.sent["client"]] == ["server/discover"]
    assert "initialize" not in pkg.METHODS and not hasattr(pkg.Client, "initialize_params")


def test_every_request_carries_the_client_meta(pkg: ModuleType) -> None:
    server, client, wire = connected(pkg)
    done = run(client.call_tool({"name": "echo"}))
    assert type(done) is pkg.types.CallToolResult and done.text == "echo"
    expected = {
        VERSION_KEY: "2099-01-01",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "2"},
    }
    assert wire.sent["client"][0]["params"] == {"name": "echo", "_meta": expected}
    meta = server.seen[0].meta
    assert (
        type(meta) is pkg.types.RequestMetaObject
        and meta.io_modelcontextprotocol_protocol_version == "2099-01-01"
    )


def test_meta_the_caller_gives_is_kept_but_the_version_is_the_sessions(pkg: ModuleType) -> None:
    server, client, wire = connected(pkg)
    run(client.call_tool({"name": "echo", "_meta": {VERSION_KEY: "mine", "trace": "t"}}))
    sent = wire.sent["client"][0]["params"]["_meta"]
    assert (
        sent[VERSION_KEY],
        sent["trace"],
        sent["io.modelcontextprotocol/clientInfo"]["name"],
    ) == ("2099-01-01", "t", "c")


def test_client_meta_the_caller_gives_wins_over_the_clients_own(pkg: ModuleType) -> None:
    server, client, wire = connected(pkg)
    mine = {"name": "on-behalf-of", "version": "9"}
    run(client.call_tool({"name": "echo", "_meta": {"io.modelcontextprotocol/clientInfo": mine}}))
    sent = wire.sent["client"][0]["params"]["_meta"]
    assert sent["io.modelcontextprotocol/clientInfo"] == mine
    assert sent["io.modelcontextprotocol/clientCapabilities"] == {}


def test_params_that_only_need_meta_may_be_omitted(pkg: ModuleType) -> None:
    server, client, wire = connected(pkg)
    run(client.discover())
    assert wire.sent["client"][0]["params"]["_meta"][VERSION_KEY] == "2099-01-01"


def test_a_result_may_ask_for_input_first(pkg: ModuleType) -> None:
    server, client, wire = connected(pkg)
    asked = run(client.call_tool({"name": "ask"}))
    assert type(asked) is pkg.types.InputRequiredResult
    assert type(asked.input_requests["who"]) is pkg.types.ElicitRequest
    assert asked.request_state == "round-1" and len(server.seen) == 1, "no handler: no retry"
    assert pkg.METHODS["elicitation/create"].embedded and hasattr(pkg.Client, "on_elicit")


def test_a_client_handler_answers_the_input_and_the_request_is_sent_again(pkg: ModuleType) -> None:
    server, client, wire = connected(pkg)

    async def on_elicit(params: Any) -> Any:
        assert params.message == "Who?"
        return pkg.types.ElicitResult(action="accept")

    client.on_elicit = on_elicit
    done = run(client.call_tool({"name": "ask"}))
    assert type(done) is pkg.types.CallToolResult and done.text == "accept"
    first, again = (m["params"] for m in wire.sent["client"])
    assert "inputResponses" not in first and "requestState" not in first
    assert again["inputResponses"] == {"who": {"action": "accept"}}
    assert again["requestState"] == "round-1"


def test_a_version_the_server_does_not_speak_is_refused_with_the_versions_it_does(
    pkg: ModuleType,
) -> None:
    server, client, wire = connected(pkg)
    params = {"name": "echo", "_meta": {VERSION_KEY: "1999-01-01"}}
    reply = run(
        server.handle({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params})
    )
    assert accepts(stateless_schema(), "UnsupportedProtocolVersionError", reply)
    assert reply["id"] == 3 and reply["error"]["code"] == UNSUPPORTED
    assert reply["error"]["data"] == {"supported": ["2099-01-01"], "requested": "1999-01-01"}
    assert server.seen == []


def test_a_discover_override_may_start_from_the_default_answer(pkg: ModuleType) -> None:
    class Custom(pkg.Server):  # type: ignore[misc,name-defined]
        name = "s"

        async def on_discover(self, params: Any) -> Any:
            answer = await super().on_discover(params)
            answer.instructions = "overridden"
            return answer

    params = {"_meta": {VERSION_KEY: "2099-01-01"}}
    reply = run(
        Custom().handle({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": params})
    )
    assert reply["result"]["supportedVersions"] == ["2099-01-01"]
    assert reply["result"]["instructions"] == "overridden"
    assert reply["result"]["_meta"] == {
        "io.modelcontextprotocol/serverInfo": {"name": "s", "version": "0.0.0"}
    }
