"""The stdio Connection of the runtime source (runtime/stdio.py), line by line: how lines are read,
answered and paired with our requests, cancellation, and the end of input."""

from __future__ import annotations

import asyncio
import json
from types import ModuleType
from typing import Any

import pytest

from mcpgen.runtime.stdio import Connection
from wiring import V25, initialize, request, run


class Lines:
    """A Connection for `peer` whose written messages are kept, decoded."""

    def __init__(self, peer: Any) -> None:
        self.written: list[Any] = []

        async def write(data: bytes) -> None:
            assert data.endswith(b"\n") and data.count(b"\n") == 1
            self.written.append(json.loads(data))

        self.connection = Connection(peer, write)
        peer.attach(self.connection)

    async def settled(self) -> None:
        """Wait for the handlers the lines started."""
        while self.connection._tasks:
            await asyncio.gather(*self.connection._tasks, return_exceptions=True)


def line(message: Any) -> bytes:
    return json.dumps(message).encode() + b"\n"


def test_lines_that_are_not_json_get_a_parse_error_and_the_connection_goes_on(
    v25: ModuleType,
) -> None:
    async def scenario() -> list[Any]:
        lines = Lines(v25.Server())
        await lines.connection.receive(b"{not json\n")
        await lines.connection.receive(line(request("ping", None, 2)))
        await lines.settled()
        return lines.written

    written = run(scenario())
    assert written[0]["error"]["code"] == -32700 and written[0]["id"] is None
    assert written[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}


def test_responses_settle_our_requests_errors_included_and_unusable_ids_are_ignored(
    v25: ModuleType,
) -> None:
    async def scenario() -> tuple[Any, Any]:
        lines = Lines(v25.Client())
        first = asyncio.ensure_future(lines.connection.request("ping", None))
        second = asyncio.ensure_future(lines.connection.request("ping", None))
        await asyncio.sleep(0)
        await lines.connection.receive(line({"jsonrpc": "2.0", "id": [1], "result": {}}))
        await lines.connection.receive(line({"jsonrpc": "2.0", "id": {"a": 1}, "result": {}}))
        await lines.connection.receive(line({"jsonrpc": "2.0", "id": 1, "result": {"ok": 1}}))
        error = {"code": -32000, "message": "busy", "data": {"retry": 1}}
        await lines.connection.receive(line({"jsonrpc": "2.0", "id": 2, "error": error}))
        done = await asyncio.wait_for(first, 2)
        with pytest.raises(v25.ProtocolError) as refused:
            await asyncio.wait_for(second, 2)
        return done, refused.value

    result, error = run(scenario())
    assert result == {"ok": 1}
    assert (error.code, error.message, error.data) == (-32000, "busy", {"retry": 1})


def test_cancelling_a_call_tells_the_peer_but_never_for_the_handshake(v25: ModuleType) -> None:
    async def scenario() -> list[Any]:
        client = v25.Client()
        lines = Lines(client)
        for method, params in (("tools/list", None), ("initialize", initialize(V25)["params"])):
            call = asyncio.ensure_future(lines.connection.request(method, params))
            await asyncio.sleep(0.01)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
        return lines.written

    written = run(scenario())
    assert [m.get("method") for m in written] == [
        "tools/list",
        "notifications/cancelled",
        "initialize",
    ]
    assert written[1]["params"] == {"requestId": written[0]["id"]}


def test_an_answer_json_cannot_carry_a_lone_surrogate_is_answered_with_an_internal_error(
    v25: ModuleType,
) -> None:
    class Surrogate(v25.Server):
        async def on_call_tool(self, params: Any) -> Any:
            return v25.types.CallToolResult(content=[v25.types.TextContent(text="\ud800")])

    async def scenario() -> list[Any]:
        lines = Lines(Surrogate())
        await lines.connection.receive(line(initialize(V25)))
        await lines.connection.receive(line(request("tools/call", {"name": "t"}, 5)))
        await lines.settled()
        return lines.written

    written = run(scenario())
    assert written[-1]["id"] == 5 and written[-1]["error"]["code"] == -32603


def test_an_overlong_line_is_a_parse_error_and_the_end_of_input_fails_what_waits(
    v25: ModuleType,
) -> None:
    async def scenario() -> tuple[list[Any], BaseException | None]:
        lines = Lines(v25.Client())
        pending = asyncio.ensure_future(lines.connection.request("ping", None))
        script: list[Any] = [ValueError("too long"), line(request("ping", None, "p")), b""]

        async def readline() -> bytes:
            await asyncio.sleep(0.01)
            step = script.pop(0)
            if isinstance(step, Exception):
                raise step
            return step

        await asyncio.wait_for(lines.connection.run(readline), 2)
        failure = None
        try:
            await asyncio.wait_for(pending, 2)
        except (ConnectionError, asyncio.TimeoutError) as exc:
            failure = exc
        return lines.written, failure

    written, failure = run(scenario())
    assert written[1]["error"]["code"] == -32700 and written[1]["id"] is None
    assert written[2] == {"jsonrpc": "2.0", "id": "p", "result": {}}
    assert isinstance(failure, ConnectionError)
