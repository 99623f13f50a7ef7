"""The HTTP client of the runtime source against hostile servers (a review found each): a response under
another id is no answer, a body that never ends or never stops growing is an error, `retry` is held to
its bounds, a flood of server requests is cut off, and what httpx raises reaches the caller as a
ConnectionError. The servers are ASGI apps under uvicorn (and one raw socket) on loopback."""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import re
from types import ModuleType
from typing import Any, AsyncIterator, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from httpserve import serve

SESSION = "2025-11-25"
Answer = Callable[[dict[str, Any], Any, Any], Any]


def hostile_app(answer: Answer) -> Any:
    """An MCP endpoint that shakes hands properly and answers every other request with `answer(message, send)`."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        data = b""
        while True:
            event = await receive()
            data += event.get("body", b"")
            if not event.get("more_body"):
                break
        message = json.loads(data) if data else {}
        if scope["method"] != "POST" or "id" not in message:  # GET, DELETE, notifications
            await respond(send, 202 if scope["method"] == "POST" else 405, b"")
            return
        if message["method"] == "initialize":
            result = {"protocolVersion": SESSION, "capabilities": {"tools": {}}, "serverInfo": {"name": "h", "version": "1"}}
            await respond(send, 200, json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode())
            return
        await answer(message, send, receive)

    return app


async def respond(send: Any, status: int, body: bytes, content_type: bytes = b"application/json", more: bool = False) -> None:
    headers = [(b"content-type", content_type), (b"mcp-session-id", b"s-1")]
    if not more:
        headers.append((b"content-length", b"%d" % len(body)))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": more})


async def shook_hands(message: dict[str, Any], send: Any) -> bool:
    """Answer `initialize` (a server with no capabilities); False for any other message."""
    if message.get("method") != "initialize":
        return False
    result = {"protocolVersion": SESSION, "capabilities": {}, "serverInfo": {"name": "h", "version": "1"}}
    await respond(send, 200, json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode())
    return True


async def hold(receive: Any) -> None:
    """Keep the answer open until the client goes."""
    while (await receive())["type"] != "http.disconnect":
        pass


def event(message: Any, event_id: str | None = None) -> bytes:
    head = f"id: {event_id}\n" if event_id else ""
    return f"{head}data: {json.dumps(message)}\n\n".encode()


TOOLS = {"tools": [{"name": "real", "inputSchema": {"type": "object"}}]}


@pytest.fixture
def pkg(linked: dict[str, ModuleType]) -> ModuleType:
    return linked[SESSION]


def list_tools(pkg: ModuleType, answer: Answer, timeout: float = 5, outer: float = 30) -> Any:
    """What `list_tools` gives against the hostile server (the exception it raises, if any)."""
    http = importlib.import_module(f"{pkg.__name__}.http")

    async def main(url: str) -> Any:
        client = pkg.Client()
        async with http.connect_http(client, url, timeout=timeout, listen=False):
            await client.start_session()
            task = asyncio.ensure_future(client.list_tools())
            done, _ = await asyncio.wait({task}, timeout=outer)
            if not done:
                task.cancel()
                return "no answer within the test's own time"
            return task.exception() or task.result()  # what the caller sees

    with serve(hostile_app(answer)) as served:
        return asyncio.run(main(served.url))


@pytest.mark.parametrize("spoofed_id", [999, "2", None])
def test_a_result_under_another_id_is_no_answer(pkg: ModuleType, spoofed_id: Any) -> None:
    async def answer(message: dict[str, Any], send: Any, receive: Any) -> None:
        spoof = {"jsonrpc": "2.0", "id": spoofed_id, "result": {"tools": [{"name": "spoof", "inputSchema": {"type": "object"}}]}}
        await respond(send, 200, json.dumps(spoof).encode())

    found = list_tools(pkg, answer)
    assert isinstance(found, ConnectionError) and "no request of ours" in str(found)


def test_on_a_stream_a_response_to_nothing_is_skipped_and_the_real_answer_read(pkg: ModuleType) -> None:
    async def answer(message: dict[str, Any], send: Any, receive: Any) -> None:
        body = event({"jsonrpc": "2.0", "id": "zz", "result": 7}) + event({"jsonrpc": "2.0", "id": message["id"], "result": TOOLS})
        await respond(send, 200, body, b"text/event-stream")

    found = list_tools(pkg, answer)
    assert [tool.name for tool in found.tools] == ["real"]


def test_a_json_body_that_never_ends_times_out(pkg: ModuleType) -> None:
    async def answer(message: dict[str, Any], send: Any, receive: Any) -> None:
        await respond(send, 200, b'{"jsonrpc": "2.0", ', more=True)
        await hold(receive)

    found = list_tools(pkg, answer, timeout=0.5, outer=10)
    assert isinstance(found, asyncio.TimeoutError), found


def test_a_body_or_an_sse_line_over_the_limit_is_refused(pkg: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    client_module = importlib.import_module(f"{pkg.__name__}.runtime.http.client")
    monkeypatch.setattr(client_module, "LIMIT", 1 << 20)
    big = {"tools": [{"name": "x" * (2 << 20), "inputSchema": {"type": "object"}}]}

    async def as_json(message: dict[str, Any], send: Any, receive: Any) -> None:
        await respond(send, 200, json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": big}).encode())

    async def one_long_line(message: dict[str, Any], send: Any, receive: Any) -> None:
        await respond(send, 200, b"data: " + b"x" * (2 << 20), b"text/event-stream")

    async def many_data_lines(message: dict[str, Any], send: Any, receive: Any) -> None:
        await respond(send, 200, b"data: xxxxxxxxxx\n" * 200_000, b"text/event-stream")

    for answer, words in ((as_json, "answer is larger"), (one_long_line, "line of the server's"), (many_data_lines, "SSE event")):
        found = list_tools(pkg, answer)
        assert isinstance(found, ConnectionError) and words in str(found), (answer.__name__, found)


def test_an_sse_answer_to_a_notification_or_a_delete_is_not_waited_for(pkg: ModuleType) -> None:
    http = importlib.import_module(f"{pkg.__name__}.http")

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        message = json.loads((await receive())["body"] or b"{}")
        if await shook_hands(message, send):
            return
        # notifications/initialized (and the DELETE that ends the session): a stream that never ends
        await respond(send, 200, b": keep-alive\n\n", b"text/event-stream", more=True)
        await hold(receive)

    async def main(url: str) -> str:
        client = pkg.Client()
        async with http.connect_http(client, url, listen=False, timeout=1):
            init = await asyncio.wait_for(client.start_session(), 10)
            return str(init.server_info.name)

    with serve(app) as served:
        assert asyncio.run(main(served.url)) == "h"


def test_a_session_id_that_is_not_visible_ascii_is_refused(pkg: ModuleType) -> None:
    http = importlib.import_module(f"{pkg.__name__}.http")

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        message = json.loads((await receive())["body"] or b"{}")
        result = {"protocolVersion": SESSION, "capabilities": {}, "serverInfo": {"name": "h", "version": "1"}}
        body = json.dumps({"jsonrpc": "2.0", "id": message.get("id"), "result": result}).encode()
        headers = [(b"content-type", b"application/json"), (b"mcp-session-id", b"s\xe9id"), (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def main(url: str) -> Exception | None:
        client = pkg.Client()
        async with http.connect_http(client, url, listen=False):
            try:
                await client.start_session()
            except Exception as exc:
                return exc
        return None

    with serve(app) as served:
        found = asyncio.run(main(served.url))
    assert isinstance(found, ConnectionError) and "Mcp-Session-Id" in str(found)


def test_a_connection_the_server_drops_is_a_connection_error(pkg: ModuleType) -> None:
    http = importlib.import_module(f"{pkg.__name__}.http")

    async def main() -> Exception | None:
        async def drop(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.readuntil(b"\r\n\r\n")
            writer.close()

        server = await asyncio.start_server(drop, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        client = pkg.Client()
        try:
            async with http.connect_http(client, f"http://127.0.0.1:{port}/mcp", listen=False):
                await client.start_session()
        except Exception as exc:
            return exc
        finally:
            server.close()
        return None

    found = asyncio.run(main())
    assert type(found) is ConnectionError and "failed" in str(found), repr(found)


def events_of(lines: list[str], pkg: ModuleType) -> list[Any]:
    client_module = importlib.import_module(f"{pkg.__name__}.runtime.http.client")

    async def source() -> AsyncIterator[str]:
        for line in lines:
            yield line

    async def collect() -> list[Any]:
        return [(e.id, e.retry, e.data) async for e in client_module._events(source())]

    return asyncio.run(collect())


def test_a_retry_is_held_to_its_bounds(pkg: ModuleType) -> None:
    lines = ["retry: 0", "", "retry: 2500", "", "retry: " + "9" * 400, "", "retry: " + "9" * 5000, "", "retry: \u0661", ""]
    assert [retry for _, retry, _ in events_of(lines, pkg)] == [100, 2500, 60_000, 60_000]


def test_server_requests_beyond_the_bound_are_dropped(pkg: ModuleType, caplog: pytest.LogCaptureFixture) -> None:
    client_module = importlib.import_module(f"{pkg.__name__}.runtime.http.client")

    class Stuck:
        async def handle(self, message: Any) -> Any:
            await asyncio.sleep(60)

    async def main() -> int:
        connection = client_module.HttpConnection.__new__(client_module.HttpConnection)
        connection.peer, connection._tasks, connection._closed = Stuck(), set(), False
        for request_id in range(client_module.REPLIES + 10):
            await connection._dispatch({"jsonrpc": "2.0", "id": request_id, "method": "ping"})
        kept = len(connection._tasks)
        for task in connection._tasks:
            task.cancel()
        await asyncio.gather(*connection._tasks, return_exceptions=True)
        return kept

    with caplog.at_level(logging.WARNING):
        kept = asyncio.run(main())
    assert kept == client_module.REPLIES
    assert sum("dropped" in r.getMessage() for r in caplog.records) == 10


LINE_ENDS = st.sampled_from(["\n", "\r", "\r\n"])


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=20), max_size=12),
    ends=st.lists(LINE_ENDS, min_size=12, max_size=12),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8),
    last_ended=st.booleans(),
)
def test_lines_split_as_sse_says_wherever_the_chunks_are_cut(linked: dict[str, ModuleType], lines: list[str], ends: list[str], cuts: list[int], last_ended: bool) -> None:
    client_module = importlib.import_module(f"{linked[SESSION].__name__}.runtime.http.client")
    text = "".join(line + end for line, end in zip(lines, ends))
    if lines and not last_ended:
        text = text[: len(text) - len(ends[len(lines) - 1])]
    data = text.encode()
    points = sorted({min(c, len(data)) for c in cuts})
    chunks = [data[a:b] for a, b in zip([0, *points], [*points, len(data)]) if b > a]

    async def source() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    async def collect() -> list[str]:
        return [line async for line in client_module._lines(source())]

    parts = re.split(r"\r\n|\r|\n", text)  # what SSE calls lines: CRLF first, then LF or CR alone
    assert asyncio.run(collect()) == parts[:-1] + ([parts[-1]] if parts[-1] else [])


@pytest.mark.parametrize("status", [301, 302, 307, 308, 399])
def test_a_notification_answered_with_a_redirect_is_not_delivered(pkg: ModuleType, status: int) -> None:
    http = importlib.import_module(f"{pkg.__name__}.http")

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        message = json.loads((await receive())["body"] or b"{}")
        if await shook_hands(message, send):
            return
        if message.get("method") == "notifications/initialized" or scope["method"] == "DELETE":
            await respond(send, 202, b"")
        else:  # httpx follows no redirect: what was sent went nowhere
            await send({"type": "http.response.start", "status": status, "headers": [(b"location", b"/elsewhere"), (b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})

    async def main(url: str) -> Any:
        client = pkg.Client()
        async with http.connect_http(client, url, listen=False, timeout=5) as connection:
            await client.start_session()
            try:
                await connection.notify("notifications/roots/list_changed", None)
            except ConnectionError as exc:
                return exc
            return "delivered"

    with serve(app) as served:
        found = asyncio.run(main(served.url))
    assert isinstance(found, ConnectionError) and f"HTTP {status}" in str(found), found
