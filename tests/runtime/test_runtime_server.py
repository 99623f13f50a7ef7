"""The server side of the runtime source (runtime/server.py, handshake.py): the handshake answer, the
capabilities it announces, and what a session of an older revision gives a stateless-era surface's
handlers (its `_meta`, its log level, its input requests)."""

from __future__ import annotations

import asyncio
from types import ModuleType
from typing import Any

from pydantic import ValidationError

from mcpgen.runtime.convert import dump
from mcpgen.runtime.stdio import Connection
from wiring import V25, V26, Link, initialize, meta, notification, request, run, started


def test_the_handshake_answers_from_the_class_and_opens_a_session(v25: ModuleType) -> None:
    t = v25.types

    class Named(v25.Server):
        name, version, title, instructions = "srv", "2.0", "The Server", "Be kind."

        async def on_list_tools(self, params: Any) -> Any:
            return t.ListToolsResult(tools=[])

        async def on_subscribe(self, params: Any) -> Any:
            return t.EmptyResult()

    server = Named()
    result = run(server.handle(initialize(V25, client_info={"name": "cli", "version": "9"})))[
        "result"
    ]
    assert result["serverInfo"] == {"name": "srv", "version": "2.0", "title": "The Server"}
    assert result["instructions"] == "Be kind."
    assert result["capabilities"] == {"tools": {}, "resources": {"subscribe": True}}
    assert server.peer_info.client_info.name == "cli" and server.protocol_version == V25

    class Declared(Named):
        capabilities = t.ServerCapabilities(logging={})

    declared = run(Declared().handle(initialize(V25)))["result"]
    assert declared["capabilities"] == {"logging": {}}
    assert run(v25.Server().handle(initialize(V25)))["result"]["capabilities"] == {}


def test_a_handshake_answer_announces_only_what_the_client_s_revision_defines(
    multi: ModuleType,
) -> None:
    class Completes(multi.Server):
        async def on_complete(self, params: Any) -> Any:
            return multi.types.CompleteResult(completion={"values": []})

        async def on_list_tools(self, params: Any) -> Any:
            return multi.types.ListToolsResult(tools=[])

    newer = run(Completes().handle(initialize("2025-03-26")))["result"]["capabilities"]
    older = run(Completes().handle(initialize("2024-11-05")))["result"]["capabilities"]
    assert set(newer) == {"completions", "tools"} and set(older) == {"tools"}


def test_discovery_lists_every_version_newest_first(linked: dict[str, ModuleType]) -> None:
    multi = linked["2024-11-05..2026-07-28"]
    reply = run(multi.Server().handle(request("server/discover", {"_meta": meta()})))
    assert reply["result"]["supportedVersions"] == sorted(multi.SUPPORTED_VERSIONS, reverse=True)


class MetaSeen:
    """What a stateless-era surface's tool handler saw of its request's `_meta`."""

    def __init__(self) -> None:
        self.metas: list[Any] = []


def meta_server(multi: ModuleType, seen: MetaSeen) -> type:
    class Tools(multi.Server):
        async def on_call_tool(self, params: Any) -> Any:
            seen.metas.append(params.meta)
            return multi.types.CallToolResult(content=[])

    return Tools


def test_a_session_s_requests_carry_the_meta_its_handshake_stands_for(multi: ModuleType) -> None:
    seen = MetaSeen()
    server = started(
        meta_server(multi, seen)(),
        "2024-11-05",
        capabilities={"roots": {}, "elicitation": {}},  # 2024-11-05 has no elicitation
        client_info={"name": "first", "version": "1"},
    )
    run(server.handle(request("tools/call", {"name": "t"}, 1)))
    first = seen.metas[-1]
    assert first.io_modelcontextprotocol_protocol_version == "2024-11-05"
    assert first.io_modelcontextprotocol_client_info.name == "first"
    assert dump(first.io_modelcontextprotocol_client_capabilities) == {"roots": {}}
    assert first.io_modelcontextprotocol_log_level is None
    run(server.handle(request("logging/setLevel", {"level": "error"}, 2)))
    run(server.handle(request("tools/call", {"name": "t"}, 3)))
    assert seen.metas[-1].io_modelcontextprotocol_log_level == "error"
    run(server.handle(initialize("2024-11-05", client_info={"name": "second", "version": "1"})))
    run(server.handle(request("tools/call", {"name": "t"}, 4)))
    again = seen.metas[-1]
    assert again.io_modelcontextprotocol_client_info.name == "second"
    assert again.io_modelcontextprotocol_log_level is None


def test_the_meta_a_session_shares_cannot_be_changed_by_one_handler(multi: ModuleType) -> None:
    outcomes: list[str] = []

    class Meddles(multi.Server):
        async def on_call_tool(self, params: Any) -> Any:
            try:
                params.meta.io_modelcontextprotocol_log_level = "debug"
                outcomes.append("changed")
            except ValidationError:
                outcomes.append("refused")
            return multi.types.CallToolResult(content=[])

    server = started(Meddles(), V25)
    run(server.handle(request("tools/call", {"name": "t"}, 1)))
    run(server.handle(request("tools/call", {"name": "t"}, 2)))
    assert outcomes == ["refused", "refused"]


def test_a_stateless_surface_asks_a_session_s_client_for_input_over_the_session(
    linked: dict[str, ModuleType],
) -> None:
    multi, v25 = linked["2024-11-05..2026-07-28"], linked[V25]
    t = multi.types

    class Asks(multi.Server):
        async def on_call_tool(self, params: Any) -> Any:
            if not params.input_responses:
                form = {"type": "object", "properties": {"name": {"type": "string"}}}
                ask = {"mode": "form", "message": "Name?", "requestedSchema": form}
                return t.InputRequiredResult(
                    inputRequests={"who": {"method": "elicitation/create", "params": ask}},
                    requestState="round-1",
                )
            answer = dump(params.input_responses["who"])
            text = f"hello {answer['content']['name']} ({params.request_state})"
            return t.CallToolResult(content=[t.TextContent(text=text)])

    class Answers(v25.Client):
        async def on_elicit(self, params: Any) -> Any:
            return v25.types.ElicitResult(action="accept", content={"name": "Ada"})

    client = Answers()
    link = Link(client, Asks(), v25.ProtocolError, multi.ProtocolError)
    run(client.start_session())
    assert run(client.call_tool({"name": "greet"})).content[0].text == "hello Ada (round-1)"
    assert link.methods()[-2:] == ["tools/call", "elicitation/create"]


def test_listen_requests_end_when_the_client_s_input_closes(linked: dict[str, ModuleType]) -> None:
    """Nobody is left to hear a listen stream's notifications: its handler is cancelled, the connection ends."""
    v26 = linked[V26]
    events: list[str] = []

    class Listens(v26.Server):
        async def on_subscriptions_listen(self, params: Any) -> Any:
            events.append("listening")
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                events.append("cancelled")
                raise

    async def scenario() -> list[bytes]:
        written: list[bytes] = []

        async def write(data: bytes) -> None:
            written.append(data)

        server = Listens()
        connection = Connection(server, write)
        server.attach(connection)
        listen = request("subscriptions/listen", {"_meta": meta(), "notifications": {}}, 1)
        lines = [multi_line(listen), b""]

        async def readline() -> bytes:
            await asyncio.sleep(0.05)
            return lines.pop(0)

        await asyncio.wait_for(connection.run(readline), 5)
        return written

    run(scenario())
    assert events == ["listening", "cancelled"]


def multi_line(message: Any) -> bytes:
    """A message as one line of JSON."""
    import json

    return json.dumps(message).encode() + b"\n"


def test_notifications_of_an_older_session_reach_a_modern_surface_s_handlers(
    multi: ModuleType,
) -> None:
    cancelled: list[Any] = []

    class Hears(multi.Server):
        async def on_cancelled(self, params: Any) -> None:
            cancelled.append(params.request_id)

    server = started(Hears(), "2024-11-05")
    assert run(server.handle(notification("notifications/cancelled", {"requestId": 42}))) is None
    assert cancelled == [42]
