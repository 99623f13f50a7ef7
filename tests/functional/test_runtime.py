"""The generated runtime: parsing, `handle` and its error codes, batches, cancellation, typed calls."""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
from types import MappingProxyType, ModuleType
from typing import Any

import pytest

from .packages import Wire, run


def req(method: str, params: Any = None, id: Any = 1) -> dict[str, Any]:
    """A JSON-RPC request."""
    return {
        "jsonrpc": "2.0",
        "id": id,
        "method": method,
        **({"params": params} if params is not None else {}),
    }


def note(method: str, params: Any = None) -> dict[str, Any]:
    """A JSON-RPC notification."""
    return {
        "jsonrpc": "2.0",
        "method": method,
        **({"params": params} if params is not None else {}),
    }


def code_of(pkg: ModuleType, message: Any) -> int:
    """The JSON-RPC error code parse_message raises for `message`."""
    with pytest.raises(pkg.ProtocolError) as caught:
        pkg.parse_message(message)
    return int(caught.value.code)


class Tools:
    """Handlers of a small server: one tool answers, one fails, one raises a ProtocolError, one waits for a gate."""

    types: ModuleType
    error: type[Exception]
    gate: asyncio.Event
    cancelled: list[str]
    notes: list[Any]

    async def on_list_tools(self, params: Any) -> Any:
        return {"tools": [{"name": "echo"}]}

    async def on_call_tool(self, params: Any) -> Any:
        if params.name == "boom":
            raise RuntimeError("secret detail")
        if params.name == "refuse":
            raise self.error(-32602, "no such tool", {"name": params.name})
        if params.name == "internal":
            raise self.error(-32603, "secret detail", {"secret": "detail"})
        if params.name == "wrong":
            return {"content": "not a list"}
        if params.name == "wait":
            try:
                await self.gate.wait()
            except asyncio.CancelledError:
                self.cancelled.append(params.name)
                raise
        return self.types.CallToolResult(
            content=[self.types.TextContent(type="text", text=params.name)]
        )

    async def on_progress(self, params: Any) -> None:
        self.notes.append(params)


def server_of(pkg: ModuleType) -> Any:
    """A fresh server of `pkg` with the Tools handlers."""
    cls = type("ToolServer", (Tools, pkg.Server), {"types": pkg.types, "error": pkg.ProtocolError})
    server = cls()
    server.gate, server.cancelled, server.notes = asyncio.Event(), [], []
    return server


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ("{not json", -32700),
        (b"\xff\xfe{", -32700),
        ("", -32700),
        ("3", -32600),
        (["not", "a", "batch"], -32600),
        ({"jsonrpc": "1.0", "id": 1, "method": "ping"}, -32600),
        ({"id": 1, "method": "ping"}, -32600),
        ({"jsonrpc": "2.0", "id": 1}, -32600),
        ({"jsonrpc": "2.0", "id": 1, "method": 7}, -32600),
        ({"jsonrpc": "2.0", "id": True, "method": "ping"}, -32600),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, -32600),
        ({"jsonrpc": "2.0", "id": None, "method": "ping"}, -32600),
        ({"jsonrpc": "2.0", "method": "ping"}, -32600),
        ({"jsonrpc": "2.0", "id": 1, "method": "notifications/initialized"}, -32600),
        ({"jsonrpc": "2.0", "id": True, "result": {}}, -32600),
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": "x"}}, -32600),
        ({"jsonrpc": "2.0", "id": 1, "method": "no/such"}, -32601),
        ({"jsonrpc": "2.0", "method": "notifications/none"}, -32601),
        ({"jsonrpc": "2.0", "id": 1, "method": "tools/call"}, -32602),
        ({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"arguments": {}}}, -32602),
        ({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}, -32602),
    ],
)
def test_parse_message_error_codes(session_pkg: ModuleType, message: Any, code: int) -> None:
    assert code_of(session_pkg, message) == code


def test_any_mapping_is_a_message(session_pkg: ModuleType) -> None:
    call = session_pkg.parse_message(MappingProxyType(req("tools/call", {"name": "echo"})))
    assert type(call) is session_pkg.types.CallToolRequest and call.params.name == "echo"
    for message, code in [
        (MappingProxyType(req("tools/call", {})), -32602),
        (MappingProxyType(req("ping", id=True)), -32600),
        (MappingProxyType(note("notifications/initialized") | {"id": 1}), -32600),
        (MappingProxyType(req("no/such")), -32601),
    ]:
        assert code_of(session_pkg, message) == code


def test_invalid_params_name_the_field(session_pkg: ModuleType) -> None:
    with pytest.raises(session_pkg.ProtocolError) as caught:
        session_pkg.parse_message(req("tools/call", {"arguments": {}}))
    assert caught.value.message == "Invalid params for tools/call"
    assert caught.value.data == [
        {"loc": ["params", "name"], "msg": "Field required", "type": "missing"}
    ]


@pytest.mark.parametrize(
    "encode", [lambda m: m, json.dumps, lambda m: json.dumps(m).encode("utf-8")]
)
def test_parse_message_reads_objects_text_and_bytes(session_pkg: ModuleType, encode: Any) -> None:
    types = session_pkg.types
    call = session_pkg.parse_message(
        encode(req("tools/call", {"name": "echo", "arguments": {"n": 1}}, id="c"))
    )
    assert type(call) is types.CallToolRequest and (
        call.id,
        call.params.name,
        call.params.arguments,
    ) == ("c", "echo", {"n": 1})
    assert (
        type(session_pkg.parse_message(encode(note("notifications/initialized"))))
        is types.InitializedNotification
    )
    response = session_pkg.parse_message(
        encode({"jsonrpc": "2.0", "id": 4, "result": {"tools": []}})
    )
    assert type(response) is types.JSONRPCResultResponse and response.id == 4
    error = session_pkg.parse_message(
        encode({"jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": "m"}})
    )
    assert type(error) is types.JSONRPCErrorResponse and error.error.code == -32601


def test_batches_are_lists_where_allowed(batching_pkg: ModuleType, session_pkg: ModuleType) -> None:
    batch = [req("ping"), note("notifications/initialized")]
    parsed = batching_pkg.parse_message(batch)
    assert [type(m) for m in parsed] == [
        batching_pkg.types.PingRequest,
        batching_pkg.types.InitializedNotification,
    ]
    assert code_of(batching_pkg, []) == -32600
    assert code_of(session_pkg, batch) == -32600
    assert (batching_pkg.methods.BATCHING, session_pkg.methods.BATCHING) == (True, False)


def test_parse_result(session_pkg: ModuleType) -> None:
    tools = session_pkg.parse_result("tools/list", {"tools": [{"name": "t"}], "nextCursor": "kept"})
    assert type(tools) is session_pkg.types.ListToolsResult and tools.tools[0].name == "t"
    assert tools.model_extra == {"nextCursor": "kept"}
    for method, result, code in [
        ("no/such", {}, -32601),
        ("notifications/progress", {}, -32601),
        ("tools/list", {"tools": "none"}, -32602),
    ]:
        with pytest.raises(session_pkg.ProtocolError) as caught:
            session_pkg.parse_result(method, result)
        assert caught.value.code == code


@pytest.mark.parametrize(
    ("message", "reply"),
    [
        (
            "{oops",
            {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32700, "message": "Parse error: not valid JSON"},
            },
        ),
        (
            {"jsonrpc": "1.0", "id": 7, "method": "ping"},
            {"jsonrpc": "2.0", "id": 7, "error": {"code": -32600}},
        ),
        (
            {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
            {"jsonrpc": "2.0", "id": None, "error": {"code": -32600}},
        ),
        (
            req("no/such", id="x"),
            {
                "jsonrpc": "2.0",
                "id": "x",
                "error": {"code": -32601, "message": "Method not found: no/such"},
            },
        ),
        (req("roots/list", id=2), {"jsonrpc": "2.0", "id": 2, "error": {"code": -32601}}),
        (
            req("completion/complete", {"prefix": "a"}, id=3),
            {"jsonrpc": "2.0", "id": 3, "error": {"code": -32601}},
        ),
        (req("tools/call", {}, id=4), {"jsonrpc": "2.0", "id": 4, "error": {"code": -32602}}),
        (
            req("tools/call", {"name": "boom"}, id=5),
            {"jsonrpc": "2.0", "id": 5, "error": {"code": -32603, "message": "Internal error"}},
        ),
        (
            req("tools/call", {"name": "wrong"}, id=6),
            {"jsonrpc": "2.0", "id": 6, "error": {"code": -32603, "message": "Internal error"}},
        ),
        (
            req("tools/call", {"name": "refuse"}, id=7),
            {
                "jsonrpc": "2.0",
                "id": 7,
                "error": {"code": -32602, "message": "no such tool", "data": {"name": "refuse"}},
            },
        ),
        (
            req("tools/call", {"name": "echo"}, id=8),
            {"jsonrpc": "2.0", "id": 8, "result": {"content": [{"type": "text", "text": "echo"}]}},
        ),
        (
            req("tools/list", id=9),
            {"jsonrpc": "2.0", "id": 9, "result": {"tools": [{"name": "echo"}]}},
        ),
        (req("ping", id=10), {"jsonrpc": "2.0", "id": 10, "result": {}}),
        (note("notifications/initialized"), None),
        (note("notifications/none"), None),
        (note("notifications/cancelled", {"reason": "no id"}), None),
        ({"jsonrpc": "2.0", "id": 99, "result": {}}, None),
    ],
)
def test_handle_answers_every_message(session_pkg: ModuleType, message: Any, reply: Any) -> None:
    answer = run(server_of(session_pkg).handle(message))
    if reply is not None and "message" not in reply.get("error", {"message": ""}):
        answer["error"].pop("message")
        answer["error"].pop("data", None)
    assert answer == reply


def test_notifications_nobody_handles_are_ignored_quietly(
    session_pkg: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        assert run(session_pkg.Server().handle(note("notifications/initialized"))) is None
        assert (
            run(
                session_pkg.Client().handle(
                    note("notifications/progress", {"progressToken": 1, "progress": 1})
                )
            )
            is None
        )
    assert caplog.records == []


@pytest.mark.parametrize("name", ["boom", "internal"])
def test_a_failing_handler_is_logged_not_leaked(
    session_pkg: ModuleType, caplog: pytest.LogCaptureFixture, name: str
) -> None:
    with caplog.at_level(logging.ERROR):
        reply = run(server_of(session_pkg).handle(req("tools/call", {"name": name})))
    assert reply["error"] == {"code": -32603, "message": "Internal error"}
    assert "secret" not in json.dumps(reply) and "secret detail" in caplog.text


def test_a_handler_sees_the_id_of_its_request(session_pkg: ModuleType) -> None:
    request_id = importlib.import_module(f"{session_pkg.__name__}.runtime").REQUEST_ID
    seen: list[Any] = []

    class Ids(session_pkg.Server):  # type: ignore[misc,name-defined]
        async def on_list_tools(self, params: Any) -> Any:
            seen.append(request_id.get())
            return {"tools": []}

    server = Ids()
    for id in ("abc", 7):
        assert run(server.handle(req("tools/list", id=id)))["id"] == id
    assert seen == ["abc", 7] and request_id.get() is None


def test_notifications_reach_their_handler_typed_and_failures_stay_silent(
    session_pkg: ModuleType,
) -> None:
    received: list[Any] = []

    class Listener(session_pkg.Client):  # type: ignore[misc,name-defined]
        async def on_progress(self, params: Any) -> None:
            received.append(params)
            if params.progress > 1:
                raise RuntimeError("handler failed")

    client = Listener()
    for progress in (1, 2.5):
        assert (
            run(
                client.handle(
                    note("notifications/progress", {"progressToken": "t", "progress": progress})
                )
            )
            is None
        )
    assert [(type(p), p.progress_token, p.progress) for p in received] == [
        (session_pkg.types.ProgressNotificationParams, "t", 1),
        (session_pkg.types.ProgressNotificationParams, "t", 2.5),
    ]


def test_a_cancelled_request_gets_no_answer_and_others_go_on(session_pkg: ModuleType) -> None:
    server = server_of(session_pkg)

    async def scenario() -> tuple[Any, Any]:
        waiting = asyncio.ensure_future(server.handle(req("tools/call", {"name": "wait"}, id="w")))
        other = asyncio.ensure_future(server.handle(req("tools/call", {"name": "wait"}, id="o")))
        await asyncio.sleep(0.05)
        assert await server.handle(note("notifications/cancelled", {"requestId": "nobody"})) is None
        assert (
            await server.handle(note("notifications/cancelled", {"requestId": "w", "reason": "r"}))
            is None
        )
        cancelled = await waiting
        server.gate.set()
        return cancelled, await other

    cancelled, other = run(scenario())
    assert cancelled is None and server.cancelled == ["wait"]
    assert other == {
        "jsonrpc": "2.0",
        "id": "o",
        "result": {"content": [{"type": "text", "text": "wait"}]},
    }


def test_a_batch_gets_the_answers_of_its_requests(
    batching_pkg: ModuleType, session_pkg: ModuleType
) -> None:
    server = server_of(batching_pkg)
    replies = run(
        server.handle(
            [req("ping", id=1), note("notifications/initialized"), req("no/such", id=2), "junk"]
        )
    )
    assert [(r["id"], "result" in r, r.get("error", {}).get("code")) for r in replies] == [
        (1, True, None),
        (2, False, -32601),
        (None, False, -32600),
    ]
    assert run(server.handle([note("notifications/initialized")])) is None
    assert run(server.handle([]))["error"]["code"] == -32600
    refused = run(server_of(session_pkg).handle([req("ping")]))
    assert refused["error"]["code"] == -32600


def test_typed_calls_both_ways_over_a_connection(session_pkg: ModuleType) -> None:
    types = session_pkg.types
    seen: list[Any] = []

    class Roots(session_pkg.Client):  # type: ignore[misc,name-defined]
        async def on_list_roots(self, params: Any) -> Any:
            return types.ListRootsResult(roots=["file:///a"])

        async def on_progress(self, params: Any) -> None:
            seen.append(params.progress)

    async def scenario() -> tuple[Any, ...]:
        server, client = server_of(session_pkg), Roots()
        wire = Wire(session_pkg, client, server)
        listed = await client.list_tools()
        called = await client.call_tool({"name": "echo", "arguments": {"n": 1}})
        typed = await client.call_tool(types.CallToolRequestParams(name="typed"))
        roots = await server.list_roots()
        pings = await client.ping(), await server.ping()
        await server.notify_progress({"progressToken": 1, "progress": 0.5})
        with pytest.raises(session_pkg.ProtocolError) as refused:
            await client.call_tool({"name": "refuse"})
        with pytest.raises(session_pkg.ProtocolError) as missing:
            await server.elicit({"message": "?"})
        while not seen:
            await asyncio.sleep(0.01)
        return listed, called, typed, roots, pings, refused.value, missing.value, wire.sent

    listed, called, typed, roots, pings, refused, missing, sent = run(scenario())
    assert type(listed) is types.ListToolsResult and listed.tools[0].name == "echo"
    assert type(called) is types.CallToolResult and called.content[0].text == "echo"
    assert typed.content[0].text == "typed"
    assert type(roots) is types.ListRootsResult and roots.roots == ["file:///a"]
    assert [type(p) for p in pings] == [types.Result, types.Result]
    assert seen == [0.5]
    assert (refused.code, refused.message, refused.data) == (
        -32602,
        "no such tool",
        {"name": "refuse"},
    )
    assert missing.code == -32601
    assert sent["client"][0] == {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    assert sent["client"][1]["params"] == {"name": "echo", "arguments": {"n": 1}}
    progress = {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": 1, "progress": 0.5},
    }
    assert progress in sent["server"]


def test_an_invalid_result_from_the_peer_is_a_protocol_error(session_pkg: ModuleType) -> None:
    class Liar:
        async def request(self, method: str, params: Any) -> Any:
            return {"tools": "not a list"}

        async def notify(self, method: str, params: Any) -> None:
            raise AssertionError("no notifications expected")

    client = session_pkg.Client()
    client.attach(Liar())
    with pytest.raises(session_pkg.ProtocolError) as caught:
        run(client.list_tools())
    assert (caught.value.code, caught.value.message) == (-32602, "Invalid result for tools/list")


def test_cancelling_a_call_tells_the_peer(session_pkg: ModuleType) -> None:
    server = server_of(session_pkg)

    async def scenario() -> Any:
        client = session_pkg.Client()
        wire = Wire(session_pkg, client, server)
        call = asyncio.ensure_future(client.call_tool({"name": "wait"}))
        while not server.cancelled and not call.done():
            await asyncio.sleep(0.01)
            if len(wire.sent["client"]) == 1 and not call.cancelled():
                call.cancel()
        return wire.sent["client"]

    sent = run(scenario())
    assert [m["method"] for m in sent] == ["tools/call", "notifications/cancelled"]
    assert sent[1]["params"]["requestId"] == sent[0]["id"]
    assert server.cancelled == ["wait"]
