"""Dispatch by an endpoint of the runtime source (runtime/peer.py): stray and wrong-way messages, ids,
batches, the request id a handler sees, whose channel a message takes, and the revision a message is
read in."""

from __future__ import annotations

import asyncio
import logging
from types import ModuleType
from typing import Any

import pytest

from mcpgen.runtime.peer import INBOUND, REQUEST_ID, Inbound
from wiring import V25, V26, Recorder, initialize, meta, notification, request, run, started


def test_responses_nobody_waits_for_are_dropped_not_answered(
    v25: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    server = started(v25.Server(), V25)
    with caplog.at_level(logging.WARNING):
        assert run(server.handle({"jsonrpc": "2.0", "id": 9, "result": {}})) is None
        error = {"jsonrpc": "2.0", "id": 9, "error": {"code": -1, "message": "no"}}
        assert run(server.handle(error)) is None
    assert "no request of ours is waiting" in caplog.text


def test_what_only_the_other_side_receives_is_refused_and_changes_nothing(v25: ModuleType) -> None:
    client = v25.Client()
    assert run(client.handle(notification("notifications/initialized"))) is None
    assert client.protocol_version is None  # a server's notification, not the client's session
    reply = run(client.handle(request("tools/list", None, 4)))
    assert reply["id"] == 4 and reply["error"]["code"] == -32601
    assert "not sent to a client" in reply["error"]["message"]


def test_an_unusable_id_is_never_echoed(v25: ModuleType) -> None:
    server = started(v25.Server(), V25)
    for bad in (True, [1], {"a": 1}, 1.5):
        reply = run(server.handle({"jsonrpc": "2.0", "id": bad, "method": "ping"}))
        assert reply["id"] is None and reply["error"]["code"] == -32600, bad


def test_a_handler_sees_its_request_s_id(v25: ModuleType) -> None:
    seen = []

    class Tools(v25.Server):
        async def on_call_tool(self, params: Any) -> Any:
            seen.append(REQUEST_ID.get())
            return v25.types.CallToolResult(content=[])

    server = started(Tools(), V25)
    run(server.handle(request("tools/call", {"name": "t"}, "r-7")))
    assert seen == ["r-7"] and REQUEST_ID.get() is None


def test_batches_where_some_revision_has_them_and_never_empty(multi: ModuleType) -> None:
    """Before a session the package's batching revision (2025-03-26) may be meant; a session decides."""
    server = multi.Server()
    assert run(server.handle([]))["error"]["code"] == -32600
    cancels = [notification("notifications/cancelled", {"requestId": i}) for i in (1, 2)]
    assert run(server.handle(cancels)) is None  # nothing owed: no empty list
    assert server.protocol_version is None
    started(server, V25)
    assert run(server.handle([request("ping")]))["error"]["code"] == -32600


def test_a_message_handed_to_one_server_inside_another_s_transport_call_takes_its_own_channel(
    v25: ModuleType,
) -> None:
    """B's transport set INBOUND for B; B's handler hands a request to A: A answers on A's channel."""
    a_channel, b_route = Recorder(), Recorder()

    class A(v25.Server):
        async def on_call_tool(self, params: Any) -> Any:
            await self.notify_tool_list_changed()
            return v25.types.CallToolResult(content=[])

    a = started(A(), V25)
    a.attach(a_channel)

    class B(v25.Server):
        async def on_list_tools(self, params: Any) -> Any:
            await a.handle(request("tools/call", {"name": "x"}, 5))
            return v25.types.ListToolsResult(tools=[])

    b = started(B(), V25)
    b.attach(Recorder())

    async def on_b_s_route() -> Any:
        token = INBOUND.set(Inbound(b, b_route))
        try:
            return await b.handle(request("tools/list"))
        finally:
            INBOUND.reset(token)

    assert "result" in run(on_b_s_route())
    assert a_channel.methods() == ["notifications/tools/list_changed"] and b_route.sent == []


def test_a_meta_version_not_spoken_statelessly_is_refused_listing_the_versions_newest_first(
    multi: ModuleType,
) -> None:
    server = multi.Server()
    for version in ("2099-12-31", V25):
        reply = run(server.handle(request("tools/list", {"_meta": meta(version)})))
        assert reply["error"]["code"] == -32022, version
        assert reply["error"]["data"] == {
            "supported": sorted(multi.SUPPORTED_VERSIONS, reverse=True),
            "requested": version,
        }


def audio_tools(pkg: ModuleType, seen: list[Any] | None = None) -> type:
    """A server of `pkg`'s surface whose tool answers text and audio (audio came in 2025-03-26)."""
    t = pkg.types

    class Audio(pkg.Server):
        async def on_call_tool(self, params: Any) -> Any:
            if seen is not None:
                seen.append(params)
            blocks = [t.TextContent(text=params.name), t.AudioContent(data="AA==", mimeType="a/b")]
            return t.CallToolResult(content=blocks, resultType="complete")

    return Audio


def test_a_session_s_messages_are_read_and_answered_in_its_revision_with_surface_types(
    multi: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[Any] = []
    server = started(audio_tools(multi, seen)(), "2024-11-05")
    with caplog.at_level(logging.WARNING):
        reply = run(server.handle(request("tools/call", {"name": "t", "arguments": {}})))
    assert [block["type"] for block in reply["result"]["content"]] == ["text"]
    assert set(reply["result"]) == {"content"}  # 2026's resultType left out
    assert "dropped /content/1" in caplog.text
    assert type(seen[0]) is multi.types.CallToolRequestParams
    assert server.protocol_version == "2024-11-05"


NEWER = {"type": "hologram", "frames": 3}


def test_newer_content_from_the_peer_is_dropped_not_fatal(
    v25: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    received = []

    class Samples(v25.Client):
        async def on_create_message(self, params: Any) -> Any:
            received.append(params)
            return v25.types.CreateMessageResult(
                role="assistant", content=v25.types.TextContent(text="ok"), model="m"
            )

    client = Samples()
    text = {"role": "user", "content": {"type": "text", "text": "hi"}}
    params = {"messages": [text, {"role": "user", "content": NEWER}], "maxTokens": 5}
    with caplog.at_level(logging.WARNING):
        reply = run(client.handle(request("sampling/createMessage", params)))
    assert reply["result"]["model"] == "m" and len(received[0].messages) == 1
    messages = [text, {"role": "assistant", "content": NEWER}]
    client.attach(Recorder({"prompts/get": {"messages": messages}}))
    with caplog.at_level(logging.WARNING):
        result = run(client.get_prompt({"name": "p"}))
    assert isinstance(result, v25.types.GetPromptResult)
    assert [message.content.type for message in result.messages] == ["text"]
    assert caplog.text.count("dropped") == 2


def legacy_client(
    multi: ModuleType, version: str = "2024-11-05", **answers: Any
) -> tuple[Any, Recorder]:
    """A client of `multi` in a session of `version` with a server that answers from `answers`."""
    init = {
        "protocolVersion": version,
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "s", "version": "1"},
    }
    channel = Recorder({"initialize": init, **answers})
    client = multi.Client()
    client.preferred_version = version
    client.attach(channel)
    run(client.start_session())
    assert client.protocol_version == version
    return client, channel


def test_typed_calls_in_an_older_session_are_sent_in_its_shape_and_return_surface_types(
    multi: ModuleType,
) -> None:
    answer = {"content": [{"type": "text", "text": "t"}]}
    client, channel = legacy_client(multi, **{"tools/call": answer})
    result = run(
        client.call_tool({"name": "x", "requestState": "s", "_meta": {"progressToken": 1}})
    )
    assert type(result) is multi.types.CallToolResult and result.content[0].text == "t"
    sent = channel.sent[-1]
    assert sent == ("tools/call", {"name": "x", "_meta": {"progressToken": 1}})


def test_a_session_is_never_sent_what_its_revision_lacks(multi: ModuleType) -> None:
    client, channel = legacy_client(multi)
    before = len(channel.sent)
    with pytest.raises(multi.ProtocolError) as error:
        run(client.subscriptions_listen({"notifications": {"toolsListChanged": True}}))
    assert error.value.code == -32601 and "2024-11-05" in error.value.message
    server = started(multi.Server(), "2024-11-05")
    server.attach(recorder := Recorder())
    with pytest.raises(multi.ProtocolError):
        run(server.notify_subscriptions_acknowledged({"notifications": {}}))
    assert len(channel.sent) == before and recorder.sent == []


def test_the_stateless_era_s_request_meta_stays_out_of_sessions(multi: ModuleType) -> None:
    client, channel = legacy_client(multi, **{"tools/list": {"tools": []}})
    run(client.list_tools())
    method, params = channel.sent[-1]
    assert method == "tools/list" and not any(
        key.startswith("io.modelcontextprotocol/") for key in (params or {}).get("_meta", {})
    )


def test_stateless_requests_carry_their_version_and_are_answered_in_it(multi: ModuleType) -> None:
    reply = run(
        audio_tools(multi)().handle(request("tools/call", {"name": "n", "_meta": meta(V26)}))
    )
    assert [block["type"] for block in reply["result"]["content"]] == ["text", "audio"]
    assert reply["result"]["resultType"] == "complete"


def test_initialize_is_answered_in_the_version_asked_for_when_spoken(multi: ModuleType) -> None:
    for asked, answered in [
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("1999-01-01", V25),
        (V26, V25),
    ]:
        reply = run(multi.Server().handle(initialize(asked)))
        assert reply["result"]["protocolVersion"] == answered, asked
    assert multi.negotiate("2025-06-18") == "2025-06-18" and multi.negotiate("x") == V26


def test_a_handler_s_internal_error_reaches_the_peer_without_its_details(v25: ModuleType) -> None:
    class Leaks(v25.Server):
        async def on_call_tool(self, params: Any) -> Any:
            raise v25.ProtocolError(-32603, "password=hunter2", {"dsn": "secret"})

    reply = run(started(Leaks(), V25).handle(request("tools/call", {"name": "t"}, 3)))
    assert reply == {"jsonrpc": "2.0", "id": 3, "error": {"code": -32603, "message": "Internal error"}}


def test_a_cancellation_naming_no_usable_id_cancels_nothing(v25: ModuleType) -> None:
    """`true` validates as the id 1 in the notification's model, but no request has the id `true`."""

    class Slow(v25.Server):
        async def on_call_tool(self, params: Any) -> Any:
            await asyncio.sleep(0.1)
            return v25.types.CallToolResult(content=[])

    async def scenario() -> Any:
        server = Slow()
        await server.handle(initialize(V25))
        call = asyncio.ensure_future(server.handle(request("tools/call", {"name": "t"}, 1)))
        await asyncio.sleep(0.02)
        cancel = notification("notifications/cancelled", {"requestId": True})
        assert await server.handle(cancel) is None
        return await call

    assert run(scenario())["result"] == {"content": []}
