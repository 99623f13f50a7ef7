"""The client side of the runtime source (runtime/client.py): negotiation in either era, the `_meta` of
stateless-era requests, and answering a server's requests for input."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from mcpgen.runtime.convert import dump
from wiring import PREFIX, V25, V26, Link, Recorder, run

SERVER_INFO = {"name": "s", "version": "1"}


def init_answer(version: str) -> dict[str, Any]:
    return {"protocolVersion": version, "capabilities": {}, "serverInfo": SERVER_INFO}


def test_initialize_announces_the_client_keeps_the_answer_and_completes_the_handshake(
    v25: ModuleType,
) -> None:
    class Declares(v25.Client):
        capabilities = v25.types.ClientCapabilities(roots={"listChanged": True})

    client = Declares()
    channel = Recorder({"initialize": init_answer(V25)})
    client.attach(channel)
    answer = run(client.start_session())
    assert answer.server_info.name == "s" and client.peer_info.server_info.name == "s"
    assert channel.methods() == ["initialize", "notifications/initialized"]
    assert channel.sent[0][1]["capabilities"] == {"roots": {"listChanged": True}}
    assert client.protocol_version == V25


def test_an_answer_naming_a_version_the_client_does_not_speak_is_a_protocol_error(
    v25: ModuleType,
) -> None:
    client = v25.Client()
    client.attach(Recorder({"initialize": init_answer("1999-01-01")}))
    with pytest.raises(v25.ProtocolError) as error:
        run(client.start_session())
    assert "1999-01-01" in error.value.message and client.protocol_version is None


def test_a_dual_era_client_probes_discovery_then_falls_back_to_initialize(
    multi: ModuleType,
) -> None:
    refused = multi.ProtocolError(-32601, "Method not found: server/discover")
    channel = Recorder({"server/discover": refused, "initialize": init_answer("2025-06-18")})
    client = multi.Client()
    client.attach(channel)
    answer = run(client.start_session())
    assert channel.methods() == ["server/discover", "initialize", "notifications/initialized"]
    assert client.protocol_version == "2025-06-18" and isinstance(
        answer, multi.types.DiscoverResult
    )


def test_a_preferred_older_version_is_proposed_with_only_what_it_defines(multi: ModuleType) -> None:
    class Elicits(multi.Client):
        preferred_version = "2024-11-05"

        async def on_elicit(self, params: Any) -> Any:
            return multi.types.ElicitResult(action="decline")

        async def on_list_roots(self, params: Any) -> Any:
            return multi.types.ListRootsResult(roots=[])

    channel = Recorder({"initialize": init_answer("2024-11-05")})
    client = Elicits()
    client.attach(channel)
    run(client.start_session())
    method, params = channel.sent[0]
    assert method == "initialize" and params["protocolVersion"] == "2024-11-05"
    assert set(params["capabilities"]) == {"roots"}  # no elicitation before 2025-06-18


def stateless_pair(
    v26: ModuleType, server_class: type | None = None, client: Any = None
) -> tuple[Any, Link]:
    client = client or v26.Client()
    link = Link(client, (server_class or v26.Server)(), v26.ProtocolError, v26.ProtocolError)
    answer = run(client.start_session())
    assert client.protocol_version == V26 and client.peer_info is not None
    assert answer.supported_versions == [V26]
    return client, link


def test_stateless_requests_carry_the_client_s_meta_and_the_session_s_version(
    v26: ModuleType,
) -> None:
    seen: list[Any] = []

    class Tools(v26.Server):
        async def on_call_tool(self, params: Any) -> Any:
            seen.append(dump(params.meta))
            return v26.types.CallToolResult(content=[], resultType="complete")

    class Named(v26.Client):
        name = "the-client"

    client, link = stateless_pair(v26, Tools, Named())
    assert link.methods() == ["server/discover"]
    run(client.call_tool({"name": "t"}))
    assert seen[-1][PREFIX + "protocolVersion"] == V26
    assert seen[-1][PREFIX + "clientInfo"]["name"] == "the-client"
    mine = {
        PREFIX + "clientInfo": {"name": "caller", "version": "2"},
        PREFIX + "protocolVersion": V25,
    }
    run(client.call_tool({"name": "t", "_meta": mine}))
    assert seen[-1][PREFIX + "clientInfo"]["name"] == "caller"
    assert seen[-1][PREFIX + "protocolVersion"] == V26


def asking_server(v26: ModuleType, rounds: list[Any]) -> type:
    t = v26.types

    class Asks(v26.Server):
        async def on_call_tool(self, params: Any) -> Any:
            answers = params.input_responses
            rounds.append(
                (params.request_state, answers and {k: dump(v) for k, v in answers.items()})
            )
            if not params.input_responses:
                form = {"type": "object", "properties": {"name": {"type": "string"}}}
                ask = {"mode": "form", "message": "Name?", "requestedSchema": form}
                return t.InputRequiredResult(
                    inputRequests={"who": {"method": "elicitation/create", "params": ask}},
                    requestState="round-1",
                    resultType="input_required",
                )
            return t.CallToolResult(content=[t.TextContent(text="done")], resultType="complete")

    return Asks


def test_a_server_s_request_for_input_is_answered_by_the_client_s_handler_and_retried(
    v26: ModuleType,
) -> None:
    class Answers(v26.Client):
        async def on_elicit(self, params: Any) -> Any:
            return v26.types.ElicitResult(action="accept", content={"name": "Ada"})

    rounds: list[Any] = []
    client, _ = stateless_pair(v26, asking_server(v26, rounds), Answers())
    assert run(client.call_tool({"name": "greet"})).content[0].text == "done"
    assert rounds[0] == (None, None)
    assert rounds[1][0] == "round-1"
    assert rounds[1][1]["who"]["content"] == {"name": "Ada"}


def test_input_no_handler_answers_leaves_the_caller_the_input_required_result(
    v26: ModuleType,
) -> None:
    rounds: list[Any] = []
    client, _ = stateless_pair(v26, asking_server(v26, rounds))
    result = run(client.call_tool({"name": "greet"}))
    assert isinstance(result, v26.types.InputRequiredResult) and len(rounds) == 1


@pytest.mark.parametrize(
    "method, params",
    [
        ("sampling/createMessage", {"messages": [], "maxTokens": 1}),
        ("roots/list", None),
    ],
)
def test_a_client_never_sends_what_only_a_server_sends(
    v25: ModuleType, method: str, params: dict[str, Any] | None
) -> None:
    """The registry says who sends each method; the runtime refuses the other side's before the wire."""
    assert method in v25.METHODS
    client = v25.Client()
    channel = Recorder({"initialize": init_answer(V25)})
    client.attach(channel)
    run(client.start_session())
    with pytest.raises(v25.ProtocolError) as error:
        run(client._mcp_call(method, params))
    assert error.value.code == -32601 and "cannot be sent by a client" in error.value.message
    assert channel.methods() == ["initialize", "notifications/initialized"]


def test_a_session_era_request_never_carries_the_stateless_era_s_per_request_meta(
    schema_dir: Path, surface25: ModuleType
) -> None:
    """A package that also speaks 2026-07-28, in a session of its 2025-11-25 surface, drops the keys
    2026-07-28 puts in every request's `_meta` (a dual-era server would read the request as stateless)
    and keeps the rest; its surface's own `_meta` is open, so nothing else would stop them."""
    upstream = json.loads((schema_dir / V26 / "schema.json").read_text("utf-8"))
    per_request = {
        "io.modelcontextprotocol/protocolVersion": V26,
        "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    assert set(per_request) <= set(upstream["$defs"]["RequestMetaObject"]["properties"])
    channel = Recorder({"initialize": init_answer(V25), "tools/list": {"tools": []}})
    client = surface25.Client()
    client.attach(channel)
    run(client.start_session())
    assert client.protocol_version == V25
    run(client.list_tools({"_meta": {**per_request, "progressToken": 7}}))
    method, params = channel.sent[-1]
    assert method == "tools/list" and params == {"_meta": {"progressToken": 7}}
