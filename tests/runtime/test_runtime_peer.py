"""Dispatch by the runtime source: every incoming message gets its handler's answer or a JSON-RPC error,
outgoing messages take the conversation's revision and channel, and one peer never uses another's.
"""

from __future__ import annotations

import asyncio
import logging
from types import ModuleType
from typing import Any

import pytest

from functional.packages import Wire, run

INIT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "c", "version": "1"},
}


class Recorder:
    """A channel that keeps what is sent through it."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []

    async def request(self, method: str, params: dict[str, Any] | None) -> Any:
        self.sent.append((method, params))
        return {}

    async def notify(self, method: str, params: dict[str, Any] | None) -> None:
        self.sent.append((method, params))


def request(method: str, params: Any = None, request_id: Any = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def session_server(pkg: ModuleType, cls: type | None = None) -> Any:
    server = (cls or pkg.Server)()
    reply = run(server.handle(request("initialize", INIT, 0)))
    assert reply["result"]["protocolVersion"] == "2025-11-25"
    return server


@pytest.fixture
def session(linked: dict[str, ModuleType]) -> ModuleType:
    return linked["2025-11-25"]


def test_requests_get_their_handler_s_answer_or_the_json_rpc_error(session: ModuleType) -> None:
    pkg = session

    class Tools(pkg.Server):
        async def on_list_tools(self, params: Any) -> Any:
            return pkg.types.ListToolsResult(
                tools=[pkg.types.Tool(name="t", inputSchema={"type": "object"})]
            )

        async def on_call_tool(self, params: Any) -> Any:
            if params.name == "boom":
                raise RuntimeError("secret detail")
            if params.name == "refuse":
                raise pkg.ProtocolError(-32602, "no such tool", {"name": params.name})
            if params.name == "invalid":
                return pkg.types.CallToolResult.model_construct(content="not a list")
            return pkg.types.CallToolResult(content=[pkg.types.TextContent(text=params.name)])

    server = session_server(pkg, Tools)
    assert run(server.handle(request("tools/list")))["result"]["tools"][0]["name"] == "t"
    assert (
        run(server.handle(request("tools/call", {"name": "ok"})))["result"]["content"][0]["text"]
        == "ok"
    )
    for name, code, message in [
        ("boom", -32603, "Internal error"),
        ("refuse", -32602, "no such tool"),
        ("invalid", -32603, "Internal error"),
    ]:
        error = run(server.handle(request("tools/call", {"name": name})))["error"]
        assert (error["code"], error["message"]) == (code, message)
        assert "secret" not in str(error)
    assert run(server.handle(request("prompts/list")))["error"]["code"] == -32601
    assert run(server.handle(request("tools/call", {"nope": 1})))["error"]["code"] == -32602
    assert (
        run(server.handle(request("sampling/createMessage", {"messages": [], "maxTokens": 1})))[
            "error"
        ]["code"]
        == -32601
    )
    assert run(server.handle(request("nope/nope")))["error"]["code"] == -32601
    assert run(server.handle(b"{not json"))["error"]["code"] == -32700
    assert (
        run(server.handle([request("ping")]))["error"]["code"] == -32600
    )  # no batches in 2025-11-25
    assert run(server.handle(request("ping")))["result"] == {}


def test_notifications_never_get_an_answer_and_unknown_ones_are_dropped(
    session: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    pkg = session
    seen = []

    class Hears(pkg.Server):
        async def on_progress(self, params: Any) -> None:
            seen.append(params.progress)
            raise RuntimeError("handler bug")

    server = session_server(pkg, Hears)
    note = {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": 1, "progress": 0.5},
    }
    with caplog.at_level(logging.WARNING):
        assert run(server.handle(note)) is None
        assert run(server.handle({"jsonrpc": "2.0", "method": "notifications/nope"})) is None
        assert (
            run(server.handle({"jsonrpc": "2.0", "method": "notifications/progress", "params": 5}))
            is None
        )
    assert seen == [0.5]
    assert (
        "notification handler on_progress failed" in caplog.text
        and "dropped notification" in caplog.text
    )


def test_a_notification_the_surface_cannot_represent_is_not_delivered_and_logged_in_one_line(
    linked: dict[str, ModuleType], caplog: pytest.LogCaptureFixture
) -> None:
    pkg = linked["2024-11-05..2026-07-28"]
    seen = []

    class Hears(pkg.Server):
        async def on_cancelled(self, params: Any) -> None:
            seen.append(params)

    server = session_server(pkg, Hears)
    # Valid in 2025-11-25 (requestId optional there), not representable in the 2026-07-28 surface.
    bare = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"reason": "x"}}
    whole = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}
    with caplog.at_level(logging.WARNING):
        assert run(server.handle(bare)) is None
        assert run(server.handle(whole)) is None
    assert [p.model_dump(by_alias=True)["requestId"] for p in seen] == [9]
    assert [r.levelname for r in caplog.records] == ["WARNING"]
    assert caplog.records[0].exc_info is None
    assert "notifications/cancelled not delivered" in caplog.text and "requestId" in caplog.text
    assert run(server.handle(request("ping")))["result"] == {}


def test_a_cancelled_request_is_not_answered_and_its_handler_stops(session: ModuleType) -> None:
    pkg = session
    started, stopped = asyncio.Event(), []

    class Slow(pkg.Server):
        async def on_call_tool(self, params: Any) -> Any:
            started.set()
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                stopped.append(True)
                raise
            raise AssertionError("not cancelled")

    async def scenario() -> Any:
        server = session_server_async = Slow()
        await server.handle(request("initialize", INIT, 0))
        call = asyncio.ensure_future(server.handle(request("tools/call", {"name": "x"}, "r1")))
        await started.wait()
        cancel = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": "r1"},
        }
        await session_server_async.handle(cancel)
        await session_server_async.handle(
            {**cancel, "params": {"requestId": [1]}}
        )  # unusable id: ignored
        return await call

    assert run(scenario()) is None and stopped == [True]


def test_one_server_s_notification_goes_out_on_its_own_channel_even_from_another_s_handler(
    session: ModuleType,
) -> None:
    """A handler serving session B that notifies session A: A's channel carries it, B's route does not."""
    pkg = session
    a_channel, b_channel, b_route = Recorder(), Recorder(), Recorder()
    a = session_server(pkg)
    a.attach(a_channel)

    class B(pkg.Server):
        async def on_call_tool(self, params: Any) -> Any:
            await a.notify_resource_updated({"uri": "file:///a"})
            await self.notify_resource_updated({"uri": "file:///b"})
            return pkg.types.CallToolResult(content=[])

    b = session_server(pkg, B)
    b.attach(b_channel)

    async def on_route() -> Any:
        from mcpgen.runtime.peer import INBOUND, Inbound

        token = INBOUND.set(Inbound(b, b_route))
        try:
            return await b.handle(request("tools/call", {"name": "x"}))
        finally:
            INBOUND.reset(token)

    assert "result" in run(on_route())
    assert a_channel.sent == [("notifications/resources/updated", {"uri": "file:///a"})]
    assert b_route.sent == [("notifications/resources/updated", {"uri": "file:///b"})]
    assert b_channel.sent == []


def test_typed_calls_validate_mappings_and_gate_what_the_revision_lets_a_side_send(
    session: ModuleType,
) -> None:
    pkg = session
    server = session_server(pkg)
    server.attach(Recorder())
    with pytest.raises(pkg.ProtocolError) as bad:
        run(server.list_roots({"_meta": 5}))
    assert bad.value.code == -32602
    client = pkg.Client()
    with pytest.raises(pkg.ProtocolError) as unattached:
        run(client.list_tools())
    assert "Not connected" in unattached.value.message
    from mcpgen.runtime.peer import Peer

    assert isinstance(client, Peer) and client.protocol_version is None


def test_a_client_and_server_talk_over_in_memory_stdio(linked: dict[str, ModuleType]) -> None:
    for revision in ("2025-11-25", "2026-07-28", "2024-11-05..2026-07-28"):
        pkg = linked[revision]

        class Echo(pkg.Server):
            async def on_call_tool(self, params: Any) -> Any:
                return pkg.types.CallToolResult(
                    content=[pkg.types.TextContent(text=str(params.arguments))]
                )

        client, server = pkg.Client(), Echo()
        Wire(pkg, client, server)
        run(client.start_session())
        result = run(client.call_tool({"name": "echo", "arguments": {"x": 1}}))
        assert result.content[0].text == "{'x': 1}", revision
        assert client.protocol_version == pkg.SUPPORTED_VERSIONS[-1]


def test_a_session_of_an_older_revision_is_offered_every_capability_its_revision_holds(
    linked: dict[str, ModuleType],
) -> None:
    """A 2026-07-28 surface's capabilities in a 2025-11-25 session: its flags are kept, what 2025-11-25
    lacks is left out. (The session revision's capability models were read before pydantic resolved
    their annotations, which it never does for them: every flag was lost.)"""
    pkg = linked["2024-11-05..2026-07-28"]
    t = pkg.types

    class Declares(pkg.Server):  # type: ignore[misc,name-defined]
        capabilities = t.ServerCapabilities(
            resources=t.ServerCapabilitiesResources(subscribe=True, listChanged=True),
            tools=t.ServerCapabilitiesTools(listChanged=True),
            extensions={"io.example/x": {}},
        )

    reply = run(Declares().handle(request("initialize", INIT, 0)))
    assert reply["result"]["capabilities"] == {
        "resources": {"subscribe": True, "listChanged": True},
        "tools": {"listChanged": True},
    }


def test_a_request_reusing_an_id_in_flight_is_refused_and_the_first_keeps_its_cancellation(session: ModuleType) -> None:
    pkg = session
    started, stopped = asyncio.Event(), []

    class Slow(pkg.Server):
        async def on_call_tool(self, params: Any) -> Any:
            if params.name == "slow":
                started.set()
                try:
                    await asyncio.sleep(30)
                except asyncio.CancelledError:
                    stopped.append(True)
                    raise
            return pkg.types.CallToolResult(content=[pkg.types.TextContent(type="text", text=params.name)])

    async def scenario() -> tuple[Any, Any, Any, Any]:
        server = Slow()
        await server.handle(request("initialize", INIT, 0))
        slow = asyncio.ensure_future(server.handle(request("tools/call", {"name": "slow"}, 5)))
        await started.wait()
        again = await server.handle(request("tools/call", {"name": "echo"}, 5))
        other = await server.handle(request("tools/call", {"name": "echo"}, 6))
        await server.handle({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}})
        return again, other, await slow, await server.handle(request("tools/call", {"name": "echo"}, 5))

    again, other, slow, reused = run(scenario())
    assert again["id"] == 5 and again["error"]["code"] == -32600 and "in flight" in again["error"]["message"]
    assert other["result"]["content"][0]["text"] == "echo"
    assert slow is None and stopped == [True]  # the cancellation reached the first request
    assert reused["result"]["content"][0]["text"] == "echo"  # the id is free once its request ended
