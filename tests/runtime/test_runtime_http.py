"""Streamable HTTP of the runtime source (runtime/http/): the app's checks (DNS rebinding, paths, media
types, body and session limits, the stateless era's mirrored headers), sessions and SSE resumption, and
the client, driven in process through the app."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import importlib
import json
from types import ModuleType
from typing import Any, AsyncIterator

import pytest

from asgi import Response, exchange, post_headers
from mcpgen.runtime.http import encode_header, header_params
from wiring import V25, V26, initialize, meta, notification, request, run

SCHEMA = {
    "type": "object",
    "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "count": {"type": "integer", "x-mcp-header": "Count"},
        "nested": {
            "type": "object",
            "properties": {"zone": {"type": "string", "x-mcp-header": "Zone"}},
        },
    },
}


def tools_class(pkg: ModuleType) -> type:
    """A server of `pkg` with an `echo` tool, a `headers` tool whose arguments travel as headers, and a
    `poll` tool that notifies, ends its SSE connection and answers after."""
    t = pkg.types
    stateless = bool(pkg.revisions.MODERN_VERSIONS)
    http = importlib.import_module(f"{pkg.__name__}.http")

    class Tools(pkg.Server):
        async def on_list_tools(self, params: Any) -> Any:
            tools = [
                {"name": "echo", "inputSchema": {"type": "object"}},
                {"name": "headers", "inputSchema": SCHEMA},
            ]
            body: dict[str, Any] = {"tools": tools}
            if stateless:
                body.update(resultType="complete", cacheScope="private", ttlMs=0)
            return t.ListToolsResult.model_validate(body)

        async def on_call_tool(self, params: Any) -> Any:
            if params.name == "poll":
                await self.notify_progress({"progressToken": "p", "progress": 1})
                assert await http.close_sse_stream()
                await asyncio.sleep(0.05)
            text = json.dumps(params.arguments or {}, sort_keys=True)
            body: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
            if stateless:
                body["resultType"] = "complete"
            return t.CallToolResult.model_validate(body)

    return Tools


def app_of(pkg: ModuleType, **options: Any) -> Any:
    http = importlib.import_module(f"{pkg.__name__}.http")
    return http.streamable_http_app(tools_class(pkg), keepalive=None, **options)


async def post(app: Any, message: Any, headers: dict[str, str], **options: Any) -> Response:
    data = message if isinstance(message, bytes) else json.dumps(message).encode()
    return await exchange(app, "POST", headers, data, **options)


async def open_session(app: Any) -> str:
    answer = await post(app, initialize(V25), post_headers())
    assert answer.status == 200, answer
    session: str = answer.headers["mcp-session-id"]
    assert (
        await post(app, notification("notifications/initialized"), post_headers(session, V25))
    ).status == 202
    return session


def test_a_loopback_server_admits_only_local_hosts_and_origins(v25: ModuleType) -> None:
    app = app_of(v25)

    async def status(**extra: str) -> int:
        return (await post(app, initialize(V25), post_headers(**extra))).status

    async def scenario() -> list[int]:
        return [
            await status(),
            await status(host="localhost:1234"),
            await status(host="evil.example:8000"),
            await status(origin="http://evil.example"),
            await status(origin="http://127.0.0.1:8000"),
        ]

    assert run(scenario()) == [200, 200, 403, 403, 200]


def test_only_json_posts_to_the_endpoint_s_path_within_the_body_limit(v25: ModuleType) -> None:
    app = app_of(v25, max_body=300)
    big = json.dumps(initialize(V25)).encode() + b" " * 400

    async def scenario() -> list[int]:
        return [
            (await post(app, initialize(V25), post_headers(), path="/elsewhere")).status,
            (
                await post(app, initialize(V25), post_headers(**{"content-type": "text/plain"}))
            ).status,
            (await post(app, big, post_headers())).status,
        ]

    assert run(scenario()) == [404, 415, 413]


def test_sessions_are_limited_idle_ones_dropped_and_deleted_ones_gone(v25: ModuleType) -> None:
    async def scenario() -> list[int]:
        full = app_of(v25, max_sessions=1)
        first = await open_session(full)
        await open_session(full)  # the first one, idle, makes room (tests/runtime/test_runtime_hardening.py: test 20)
        displaced = (await post(full, request("ping"), post_headers(first, V25))).status
        idle = app_of(v25, max_sessions=1, session_timeout=0)
        old = await open_session(idle)
        await asyncio.sleep(0.2)  # the sweeper looks every 50 ms at the least
        replaced = (await post(idle, initialize(V25), post_headers())).status
        gone = (await post(idle, request("ping"), post_headers(old, V25))).status
        app = app_of(v25)
        session = await open_session(app)
        deleted = (await exchange(app, "DELETE", post_headers(session, V25))).status
        after = (await post(app, request("ping"), post_headers(session, V25))).status
        unknown = (await post(app, request("ping"), post_headers("nope", V25))).status
        return [displaced, replaced, gone, deleted, after, unknown]

    assert run(scenario()) == [404, 200, 404, 200, 404, 404]


def test_a_session_refuses_batches_its_revision_lacks_and_ignores_stray_responses(
    v25: ModuleType,
) -> None:
    async def scenario() -> tuple[Response, Response]:
        app = app_of(v25)
        session = await open_session(app)
        batch = await post(app, [request("ping")], post_headers(session, V25))
        stray = await post(
            app, {"jsonrpc": "2.0", "id": [1], "result": {}}, post_headers(session, V25)
        )
        return batch, stray

    batch, stray = run(scenario())
    assert batch.status == 400 and batch.json()["error"]["code"] == -32600
    assert stray.status == 202


def test_a_closed_sse_stream_resumes_after_the_last_event_the_client_has(v25: ModuleType) -> None:
    async def scenario() -> tuple[Response, Response]:
        app = app_of(v25)
        session = await open_session(app)
        call = request("tools/call", {"name": "poll", "arguments": {}}, 7)
        first = await post(app, call, post_headers(session, V25))
        ids = [line[4:] for line in first.body.decode().split("\n") if line.startswith("id: ")]
        headers = {"host": "127.0.0.1:8000", "accept": "text/event-stream"}
        headers.update({"mcp-session-id": session, "last-event-id": ids[-1]})
        return first, await exchange(app, "GET", headers)

    first, resumed = run(scenario())
    assert [m["method"] for m in first.json()] == ["notifications/progress"]
    assert resumed.status == 200 and [m.get("id") for m in resumed.json()] == [7]


def stateless_headers(message: dict[str, Any], **extra: str) -> dict[str, str]:
    headers = post_headers(None, V26, **{"mcp-method": message["method"]})
    name = message.get("params", {}).get("name")
    if name is not None:
        headers["mcp-name"] = name
    return {**headers, **extra}


def call(arguments: dict[str, Any], name: str = "headers", **meta_extra: Any) -> dict[str, Any]:
    return request(
        "tools/call", {"name": name, "arguments": arguments, "_meta": meta(**meta_extra)}, 3
    )


def test_stateless_headers_must_mirror_the_body(v26: ModuleType) -> None:
    app = app_of(v26)

    async def answer(message: dict[str, Any], **extra: str) -> tuple[int, Any]:
        response = await post(app, message, stateless_headers(message, **extra))
        body = response.json()
        return response.status, body.get("error", {}).get("code") if "error" in body else "ok"

    echo = call({}, "echo")
    cases = {
        "matching": answer(echo),
        "method": answer(echo, **{"mcp-method": "tools/list"}),
        "name": answer(echo, **{"mcp-name": "other"}),
        "version": answer(call({}, "echo", **{"io.modelcontextprotocol/protocolVersion": V25})),
        "base64 name": answer(
            echo, **{"mcp-name": "=?base64?" + base64.b64encode(b"echo").decode() + "?="}
        ),
        "param": answer(call({"region": "eu"}), **{"mcp-param-region": "eu"}),
        "param differs": answer(call({"region": "eu"}), **{"mcp-param-region": "us"}),
        "param missing": answer(call({"region": "eu"})),
        "nested param missing": answer(call({"nested": {"zone": "z1"}})),
        "integer as 42.0": answer(call({"count": 42}), **{"mcp-param-count": "42.0"}),
        "integer as 4.2e1": answer(call({"count": 42}), **{"mcp-param-count": "4.2e1"}),
        "a fraction a float loses": answer(
            call({"count": 42}), **{"mcp-param-count": "42.00000000000000001"}
        ),
        "beyond the safe range": answer(
            call({"count": 2**53 + 1}), **{"mcp-param-count": str(2**53 + 1)}
        ),
    }

    async def scenario() -> dict[str, Any]:
        return {key: await outcome for key, outcome in cases.items()}

    mismatch = (400, -32020)
    assert run(scenario()) == {
        "matching": (200, "ok"),
        "method": mismatch,
        "name": mismatch,
        "version": mismatch,
        "base64 name": (200, "ok"),
        "param": (200, "ok"),
        "param differs": mismatch,
        "param missing": mismatch,
        "nested param missing": mismatch,
        "integer as 42.0": (200, "ok"),
        "integer as 4.2e1": (200, "ok"),
        "a fraction a float loses": mismatch,
        "beyond the safe range": mismatch,
    }


def test_stateless_errors_have_their_http_status(v26: ModuleType) -> None:
    app = app_of(v26)

    async def scenario() -> list[tuple[int, Any]]:
        unknown = request("nope/nope", {"_meta": meta()})
        invalid = request("tools/call", {"name": "echo", "arguments": 5, "_meta": meta()})
        version = request("tools/list", {"_meta": meta()})
        found = []
        for message, headers in (
            (unknown, stateless_headers(unknown)),
            (invalid, stateless_headers(invalid)),
            (version, post_headers(None, "2099-01-01", **{"mcp-method": "tools/list"})),
        ):
            response = await post(app, message, headers)
            found.append((response.status, response.json()["error"]))
        return found

    (unknown, unknown_error), (invalid, invalid_error), (version, version_error) = run(scenario())
    assert (unknown, unknown_error["code"]) == (404, -32601)
    assert (invalid, invalid_error["code"]) == (400, -32602)
    assert (version, version_error["code"]) == (400, -32022)
    assert version_error["data"]["supported"] == [V26]


def test_header_values_that_are_not_plain_ascii_travel_in_the_base64_sentinel() -> None:
    for value in ("héllo", " padded", "tab\t", "=?base64?x?="):
        encoded = encode_header(value)
        assert encoded.startswith("=?base64?") and encoded.isascii()
        assert base64.b64decode(encoded[len("=?base64?") : -2]).decode() == value
    assert encode_header("plain name") == "plain name"
    assert header_params(SCHEMA) == {
        "Region": ("region",),
        "Count": ("count",),
        "Zone": ("nested", "zone"),
    }


# --- the client, through the app ---------------------------------------------------------------


class _Answer:
    """The part of an httpx response `connect_http` reads."""

    def __init__(self, response: Response) -> None:
        self.status_code = response.status
        self.headers = response.headers
        self.body = response.body

    async def aread(self) -> bytes:
        return self.body

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        yield self.body


class AppHttp:
    """The part of an `httpx.AsyncClient` that `connect_http` uses, served by an ASGI app in process
    (each answer whole); every request's method, headers and JSON body are kept."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.sent: list[tuple[str, dict[str, str], Any]] = []

    async def _exchange(
        self, method: str, headers: dict[str, str] | None, content: bytes
    ) -> _Answer:
        headers = {"host": "127.0.0.1:8000", **(headers or {})}
        self.sent.append((method, headers, json.loads(content) if content else None))
        return _Answer(await exchange(self.app, method, headers, content))

    @contextlib.asynccontextmanager
    async def stream(
        self, method: str, url: str, content: bytes = b"", headers: dict[str, str] | None = None
    ) -> AsyncIterator[_Answer]:
        yield await self._exchange(method, headers, content)

    async def request(
        self, method: str, url: str, headers: dict[str, str] | None = None
    ) -> _Answer:
        return await self._exchange(method, headers, b"")


def test_a_stateless_client_mirrors_its_arguments_and_names_in_headers(v26: ModuleType) -> None:
    http = importlib.import_module(f"{v26.__name__}.http")
    app = app_of(v26)

    async def scenario() -> Any:
        client = v26.Client()
        async with http.connect_http(
            client, "http://127.0.0.1:8000/mcp", http=AppHttp(app), listen=False
        ):
            await client.start_session()
            await client.list_tools()
            arguments = {"region": "sü d", "count": 7, "nested": {"zone": "z"}}
            return await client.call_tool({"name": "headers", "arguments": arguments})

    result = run(scenario())
    assert json.loads(result.content[0].text) == {
        "count": 7,
        "nested": {"zone": "z"},
        "region": "sü d",
    }


def test_a_session_client_sends_the_negotiated_version_on_later_requests(v25: ModuleType) -> None:
    http_module = importlib.import_module(f"{v25.__name__}.http")
    http = AppHttp(app_of(v25))

    async def scenario() -> None:
        client = v25.Client()
        async with http_module.connect_http(
            client, "http://127.0.0.1:8000/mcp", http=http, listen=False
        ):
            await client.start_session()
            await client.list_tools()

    run(scenario())
    (_, first, _), *later = http.sent
    assert "mcp-protocol-version" not in first
    assert [h.get("mcp-protocol-version") for _, h, _ in later] == [V25, V25, V25]  # …, DELETE


@pytest.mark.parametrize(
    ("answer", "found"),
    [
        ({"id": [1], "result": {"odd": True}}, "ConnectionError"),  # a result under an id not ours is no answer
        ({"id": None, "error": {"code": -32700, "message": "Parse error"}}, "ProtocolError -32700"),
    ],
)
def test_only_an_error_without_an_id_settles_the_request_of_its_post(
    v25: ModuleType, answer: dict[str, Any], found: str
) -> None:
    """A response whose id names none of the client's requests: an error the server could not give an id
    (JSON-RPC's null) is the POST's request's; a result is nobody's, and the request fails."""
    http_module = importlib.import_module(f"{v25.__name__}.http")

    async def odd(scope: Any, receive: Any, send: Any) -> None:
        while (await receive()).get("more_body"):
            pass
        body = json.dumps({"jsonrpc": "2.0", **answer}).encode()
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def scenario() -> str:
        client = v25.Client()
        async with http_module.connect_http(
            client, "http://x/mcp", http=AppHttp(odd), listen=False
        ) as connection:
            try:
                await connection.request("ping", None)
            except Exception as exc:
                code = getattr(exc, "code", None)
                return type(exc).__name__ + (f" {code}" if code is not None else "")
            return "answered"

    assert run(scenario()) == found


def seeing(pkg: ModuleType) -> tuple[type, type, list[str]]:
    """`tools_class(pkg)` with a `note` tool that notifies before it answers, and the same class with a
    `handle` of its own that records the method of every message it is handed; the record."""
    seen: list[str] = []

    class Noting(tools_class(pkg)):  # type: ignore[misc]
        async def on_call_tool(self, params: Any) -> Any:
            if params.name == "note":
                await self.notify_progress({"progressToken": "p", "progress": 1})
            return await super().on_call_tool(params)

    class Seeing(Noting):
        async def handle(self, message: Any) -> Any:
            seen.append(message.get("method", "?") if isinstance(message, dict) else "?")
            return await super().handle(message)

    return Noting, Seeing, seen


def test_a_server_s_own_handle_is_handed_each_message_with_its_route_and_version(
    v25: ModuleType, v26: ModuleType
) -> None:
    """Where a server class overrides `handle`, the transports hand it every message they receive, and
    its `super().handle` still answers on the message's route and in its version: a call that notifies
    answers on its POST's own SSE stream (session era); the tool list read for the header check and the
    call are read in the header's version (stateless era). Answers are those of the class without."""
    http25 = importlib.import_module(f"{v25.__name__}.http")
    http26 = importlib.import_module(f"{v26.__name__}.http")

    async def session_era(server_class: type) -> Any:
        app = http25.streamable_http_app(server_class, keepalive=None)
        session = await open_session(app)
        note = request("tools/call", {"name": "note", "arguments": {"a": 1}}, 7)
        return (await post(app, note, post_headers(session, V25))).json()

    async def stateless(server_class: type) -> Any:
        app = http26.streamable_http_app(server_class, keepalive=None)
        message = call({"region": "eu"})
        answer = await post(app, message, stateless_headers(message, **{"mcp-param-region": "eu"}))
        return answer.status, answer.json()

    plain, own, seen = seeing(v25)
    answers = run(session_era(own))
    assert answers == run(session_era(plain))
    assert [m.get("method") for m in answers] == ["notifications/progress", None]
    assert answers[-1]["id"] == 7
    assert seen == ["initialize", "notifications/initialized", "tools/call"]
    plain, own, seen = seeing(v26)
    status, answer = run(stateless(own))
    assert (status, answer) == run(stateless(plain))
    assert status == 200 and answer["result"]["resultType"] == "complete"
    assert seen == ["tools/list", "tools/call"]
