"""What hostile traffic and real peers found in the generated servers (issue 22), each pinned by a test
of the runtime source: no crash, no 500, bounded memory and work, one session never sees another's."""

from __future__ import annotations

import asyncio
import gc
import importlib
import json
import tracemalloc
from types import ModuleType
from typing import Any

import pytest

from asgi import Response, exchange, post_headers
from functional.packages import run
from http_fixtures import Probe, tool_server

SESSION = "2025-11-25"
STATELESS = "2026-07-28"
MULTI = "2024-11-05..2026-07-28"


def app_of(pkg: ModuleType, **options: Any) -> Any:
    http = importlib.import_module(f"{pkg.__name__}.http")
    return http.streamable_http_app(tool_server(pkg, Probe()), keepalive=None, **options)


def body(message: Any) -> bytes:
    return json.dumps(message).encode()


def call(name: str, arguments: dict[str, Any], request_id: Any = 1, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if meta:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


async def open_session(app: Any, version: str = SESSION) -> str:
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}},
    }
    answer = await exchange(app, "POST", post_headers(), body(init))
    assert answer.status == 200, answer.body
    session = answer.headers["mcp-session-id"]
    done = await exchange(app, "POST", post_headers(session, version), b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    assert done.status == 202
    return session


# --- 1-3: crashes and 500s ---------------------------------------------------------------------


def test_1_a_response_line_with_an_array_id_does_not_kill_a_stdio_server(linked: dict[str, ModuleType]) -> None:
    from mcpgen.runtime.stdio import Connection

    pkg = linked[SESSION]
    written: list[Any] = []

    async def write(data: bytes) -> None:
        written.append(json.loads(data))

    async def scenario() -> None:
        connection = Connection(tool_server(pkg, Probe())(), write)
        lines = [
            b'{"jsonrpc":"2.0","id":[1],"result":{}}',
            b'{"jsonrpc":"2.0","id":{},"error":{"code":1,"message":"m"}}',
            body({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": SESSION, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}),
            body({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        ]
        feed = iter([*lines, b""])

        async def lines_then_eof() -> bytes:
            line = next(feed)
            return line + b"\n" if line else b""

        await connection.run(lines_then_eof)

    run(scenario())
    assert [m.get("id") for m in written] == [0, 1] and "result" in written[1]


def test_2_an_array_method_or_a_response_with_an_unusable_id_is_a_json_rpc_error_not_a_500(linked: dict[str, ModuleType]) -> None:
    app = app_of(linked[SESSION])

    async def scenario() -> list[Response]:
        session = await open_session(app)
        headers = post_headers(session, SESSION)
        return [
            await exchange(app, "POST", headers, b'{"jsonrpc":"2.0","id":2,"method":[1]}'),
            await exchange(app, "POST", headers, b'{"jsonrpc":"2.0","id":[1],"result":{}}'),
            await exchange(app, "POST", headers, b'{"jsonrpc":"2.0","id":{},"result":{}}'),
            await exchange(app, "POST", headers, body(call("echo", {"x": 1}, 3))),
        ]

    method, array_id, object_id, after = run(scenario())
    assert method.status == 400 and method.json()["error"]["code"] == -32600 and method.json()["id"] == 2
    assert array_id.status == 202 and object_id.status == 202  # responses to nothing of ours: ignored
    assert after.status == 200 and "result" in after.json()


@pytest.mark.parametrize(
    "raw",
    [
        b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow","arguments":{"tag":"\\ud800"}}}',
        b'{"jsonrpc":"2.0","id":"\\udc00","method":"ping"}',
        b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":1e400}}}',
        '{"jsonrpc":"2.0","id":5,"method":"ping"}'.encode("utf-16"),
        b"\xef\xbb\xbf" + b'{"jsonrpc":"2.0","id":5,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"x":' + b"[" * 990 + b"]" * 990 + b"}}}",
    ],
    ids=["surrogate-argument", "surrogate-id", "overflowing-number", "utf-16", "bom", "deep"],
)
def test_3_what_json_cannot_carry_back_is_refused_before_any_handler_runs(linked: dict[str, ModuleType], raw: bytes) -> None:
    pkg = linked[SESSION]
    probe = Probe()
    http = importlib.import_module(f"{pkg.__name__}.http")
    app = http.streamable_http_app(tool_server(pkg, probe), keepalive=None)

    async def scenario() -> tuple[Response, Response, int]:
        session = await open_session(app)
        headers = post_headers(session, SESSION)
        before = len(asyncio.all_tasks())
        refused = await exchange(app, "POST", headers, raw)
        after = await exchange(app, "POST", headers, body(call("echo", {}, 6)))
        return refused, after, len(asyncio.all_tasks()) - before

    refused, after, leaked = run(scenario())
    assert refused.status == 400 and refused.json()["error"]["code"] == -32700, refused.body
    assert probe.started == [] and leaked <= 0
    assert after.status == 200 and "result" in after.json()


def test_3_a_handler_s_answer_json_cannot_carry_is_answered_minus_32603_not_500(linked: dict[str, ModuleType]) -> None:
    pkg = linked[SESSION]

    class Bad(pkg.Server):
        async def on_call_tool(self, params: Any) -> Any:
            if params.name == "notify":
                await self.notify_progress({"progressToken": 1, "progress": 1, "message": "\ud800"})
            return pkg.types.CallToolResult(content=[pkg.types.TextContent(text="lone \ud800")])

    http = importlib.import_module(f"{pkg.__name__}.http")
    app = http.streamable_http_app(Bad, keepalive=None)

    async def scenario() -> tuple[Response, Response]:
        session = await open_session(app)
        headers = post_headers(session, SESSION)
        return (
            await exchange(app, "POST", headers, body(call("json", {}, 1))),
            await exchange(app, "POST", headers, body(call("notify", {}, 2))),
        )

    answer, notified = run(scenario())
    assert answer.status == 200 and answer.json()["error"]["code"] == -32603
    assert notified.status == 200 and notified.json()["error"]["code"] == -32603


# --- 4-9: sessions and streams ------------------------------------------------------------------


def test_4_a_dropped_sse_connection_lets_go_so_the_client_resumes_at_once(linked: dict[str, ModuleType]) -> None:
    app = app_of(linked[SESSION])

    async def scenario() -> tuple[list[Any], int]:
        session = await open_session(app)
        headers = post_headers(session, SESSION)
        dropped = asyncio.Event()
        first: list[bytes] = []
        sent = iter([{"type": "http.request", "body": body(call("progress", {}, 9, {"progressToken": 7})), "more_body": False}])

        async def receive() -> dict[str, Any]:
            message = next(sent, None)
            if message is not None:
                return message
            await dropped.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.body" and message.get("body"):
                first.append(message["body"])
                if len(first) == 2:  # the priming event and the first progress notification
                    dropped.set()
                    await asyncio.sleep(0.2)  # a real socket: sends after a drop vanish, they do not raise

        scope = {
            "type": "http", "method": "POST", "path": "/mcp", "root_path": "", "server": ("127.0.0.1", 8000),
            "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
        }
        post = asyncio.ensure_future(app(scope, receive, send))
        await dropped.wait()
        await asyncio.sleep(0.05)
        last = next(line for line in first[-1].decode().split("\n") if line.startswith("id: "))[4:]
        resumed = await exchange(app, "GET", {**headers, "last-event-id": last, "accept": "text/event-stream"})
        await post
        return resumed.json(), resumed.status

    events, status = run(scenario())
    assert status == 200
    assert events[-1]["id"] == 9 and events[-1]["result"]["content"][0]["text"] == "done"


def test_5_an_idle_session_expires_on_its_own_but_a_long_call_keeps_its_session(linked: dict[str, ModuleType]) -> None:
    app = app_of(linked[SESSION], session_timeout=0.4)

    async def scenario() -> tuple[bool, Response, bool]:
        idle = await open_session(app)
        busy = await open_session(app)
        slow = asyncio.ensure_future(
            exchange(app, "POST", post_headers(busy, SESSION), body(call("slow", {"seconds": 1.5, "tag": "t"}, 2)))
        )
        await asyncio.sleep(1.0)
        idle_gone = idle not in app.sessions
        answer = await slow
        return idle_gone, answer, busy in app.sessions

    idle_gone, answer, busy_kept = run(scenario())
    assert idle_gone
    assert answer.status == 200 and answer.json()["result"]["content"][0]["text"] == "t"
    assert busy_kept
    run(app.aclose())


def test_6_replayed_events_stay_within_the_session_s_byte_budget_and_delete_returns_them_at_once(linked: dict[str, ModuleType]) -> None:
    pkg = linked[SESSION]
    big = "x" * 100_000

    class Chatty(tool_server(pkg, Probe())):  # type: ignore[misc]
        async def on_call_tool(self, params: Any) -> Any:
            await self.notify_progress({"progressToken": 1, "progress": 1})  # the answer goes SSE
            return pkg.types.CallToolResult(content=[pkg.types.TextContent(text=big)])

    http = importlib.import_module(f"{pkg.__name__}.http")
    app = http.streamable_http_app(Chatty, keepalive=None, replay_bytes=300_000)

    async def scenario() -> tuple[int, int]:
        session = await open_session(app)
        for i in range(20):
            answer = await exchange(app, "POST", post_headers(session, SESSION), body(call("x", {}, i + 1)))
            assert answer.json()[-1]["result"]["content"][0]["text"] == big
        live = app.sessions[session]
        kept = sum(s.kept for s in (live.standalone, *live.streams.values()))
        before = tracemalloc.get_traced_memory()[0]
        gone = await exchange(app, "DELETE", post_headers(session, SESSION))
        assert gone.status == 200
        return kept, before - tracemalloc.get_traced_memory()[0]

    gc.disable()
    tracemalloc.start()
    try:
        kept, returned = run(scenario())
    finally:
        tracemalloc.stop()
        gc.enable()
    assert 200_000 < kept <= 300_000 + 110_000  # the budget, and at most the newest event over it
    assert returned > 200_000  # the replayed events go with DELETE, no garbage collection needed


def test_7_handshakes_in_progress_count_against_max_sessions(linked: dict[str, ModuleType]) -> None:
    pkg = linked[SESSION]

    class SlowHandshake(pkg.Server):
        async def on_initialize(self, params: Any) -> Any:
            await asyncio.sleep(0.3)
            return self._mcp_handshake()

    http = importlib.import_module(f"{pkg.__name__}.http")
    app = http.streamable_http_app(SlowHandshake, keepalive=None, max_sessions=3)
    init = body({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": SESSION, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}})

    async def scenario() -> list[int]:
        answers = await asyncio.gather(*(exchange(app, "POST", post_headers(), init) for _ in range(12)))
        return [a.status for a in answers]

    statuses = run(scenario())
    assert statuses.count(200) == 3 and statuses.count(503) == 9 and len(app.sessions) == 3


def test_8_a_batch_over_the_limit_is_refused_before_any_of_it_runs(linked: dict[str, ModuleType]) -> None:
    pkg = linked[MULTI]
    app = app_of(pkg, max_batch=50)
    ping = {"jsonrpc": "2.0", "method": "ping"}

    async def scenario() -> tuple[Response, Response]:
        session = await open_session(app, "2025-03-26")
        headers = post_headers(session, "2025-03-26")
        over = await exchange(app, "POST", headers, body([{**ping, "id": i} for i in range(51)]))
        within = await exchange(app, "POST", headers, body([{**ping, "id": i} for i in range(50)]))
        return over, within

    over, within = run(scenario())
    assert over.status == 400 and "more than 50" in over.json()["error"]["message"]
    assert within.status == 200 and len(within.json()) == 50


def test_9_a_cancelled_request_s_post_ends_its_stream_instead_of_an_empty_202(linked: dict[str, ModuleType]) -> None:
    app = app_of(linked[SESSION])

    async def scenario() -> Response:
        session = await open_session(app)
        headers = post_headers(session, SESSION)
        slow = asyncio.ensure_future(exchange(app, "POST", headers, body(call("slow", {"seconds": 5, "tag": "c"}, "s1"))))
        await asyncio.sleep(0.2)
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "s1"}}
        await exchange(app, "POST", headers, body(cancel))
        return await slow

    answer = run(scenario())
    assert answer.status == 200 and answer.headers["content-type"] == "text/event-stream"
    assert answer.json() == []  # the priming event only: no answer to a cancelled request


# --- 10-12: protocol details --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "header", "status"),
    [(2**60, str(2**60 + 1), 400), (2**60, str(2**60), 400), (42, "42.0", 200), (42, "42", 200), (42, "43", 400), (2**53 - 1, str(2**53 - 1), 200)],
)
def test_10_integer_headers_compare_exactly_and_only_in_the_safe_range(linked: dict[str, ModuleType], count: int, header: str, status: int) -> None:
    pkg = linked[STATELESS]
    app = app_of(pkg)
    meta = {
        "io.modelcontextprotocol/protocolVersion": STATELESS,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
    }
    message = call("headers", {"count": count}, 1, meta)
    headers = post_headers(None, STATELESS, **{"mcp-method": "tools/call", "mcp-name": "headers", "mcp-param-count": header})
    answer = run(exchange(app, "POST", headers, body(message)))
    assert answer.status == status, answer.body
    if status == 400:
        assert answer.json()["error"]["code"] == -32020


def test_11_a_session_refuses_another_session_era_version_header(linked: dict[str, ModuleType]) -> None:
    app = app_of(linked[MULTI])

    async def scenario() -> list[int]:
        session = await open_session(app, "2025-11-25")
        statuses = []
        for version in ("2024-11-05", "2025-06-18", "2025-11-25", "2025-03-26"):
            answer = await exchange(app, "POST", post_headers(session, version), body(call("echo", {}, 1)))
            statuses.append(answer.status)
        return statuses

    assert run(scenario()) == [400, 400, 200, 200]  # the session's version, or the one the chapter says to assume


@pytest.mark.parametrize(
    ("server", "host", "status"),
    [
        (("0.0.0.0", 8000), "evil.com", 403),
        (("192.168.1.20", 8000), "evil.com:8000", 403),
        (None, "evil.com", 403),  # a Unix socket behind a proxy
        (("127.0.0.1", 8000), "[::1]evil.com", 403),
        (("127.0.0.1", 8000), "localhost:8000", 200),
        (("192.168.1.20", 8000), "192.168.1.20:8000", 200),
        (None, "[::1]:9", 200),
    ],
)
def test_12_without_allow_lists_only_hosts_dns_rebinding_cannot_forge_are_admitted(
    linked: dict[str, ModuleType], server: Any, host: str, status: int
) -> None:
    app = app_of(linked[SESSION])
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": SESSION, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}
    answer = run(exchange(app, "POST", {**post_headers(), "host": host}, body(init), server=server))
    assert answer.status == status, answer.body


def test_12_a_listed_name_is_admitted_and_origins_follow_the_hosts(linked: dict[str, ModuleType]) -> None:
    app = app_of(linked[SESSION], allowed_hosts=["mcp.example.com"])
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": SESSION, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}
    named = {**post_headers(), "host": "mcp.example.com"}
    statuses = [
        run(exchange(app, "POST", named, body(init))).status,
        run(exchange(app, "POST", {**named, "origin": "https://mcp.example.com"}, body(init))).status,
        run(exchange(app, "POST", {**named, "origin": "https://evil.com"}, body(init))).status,
        run(exchange(app, "POST", {**post_headers(), "host": "127.0.0.1"}, body(init))).status,
        # a listed name without a port admits that host on any port, and Origins naming it
        run(exchange(app, "POST", {**post_headers(), "host": "mcp.example.com:8443"}, body(init))).status,
        run(exchange(app, "POST", {**post_headers(), "host": "mcp.example.com:8443", "origin": "https://mcp.example.com:8443"}, body(init))).status,
        run(exchange(app, "POST", {**post_headers(), "host": "evil.mcp.example.com:8443"}, body(init))).status,
    ]
    assert statuses == [200, 200, 403, 403, 200, 200, 403]


# --- 13-16: multi-revision and routing ---------------------------------------------------------


def test_13_an_older_session_gets_no_output_schema_when_its_calls_cannot_carry_structured_content(linked: dict[str, ModuleType]) -> None:
    pkg = linked[MULTI]

    class Structured(pkg.Server):
        async def on_list_tools(self, params: Any) -> Any:
            tool = {"name": "add", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}, "title": "Add"}
            return pkg.types.ListToolsResult.model_validate({"tools": [tool], "resultType": "complete", "ttlMs": 0, "cacheScope": "public"})

        async def on_call_tool(self, params: Any) -> Any:
            return pkg.types.CallToolResult.model_validate(
                {"content": [{"type": "text", "text": "3"}], "structuredContent": {"sum": 3}, "resultType": "complete"}
            )

    http = importlib.import_module(f"{pkg.__name__}.http")
    app = http.streamable_http_app(Structured, keepalive=None)

    async def scenario(version: str) -> tuple[Any, Any]:
        session = await open_session(app, version)
        headers = post_headers(session, version)
        listed = await exchange(app, "POST", headers, body({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        called = await exchange(app, "POST", headers, body(call("add", {}, 2)))
        return listed.json()["result"]["tools"][0], called.json()["result"]

    old_tool, old_result = run(scenario("2025-03-26"))
    assert "outputSchema" not in old_tool and "structuredContent" not in old_result
    new_tool, new_result = run(scenario("2025-06-18"))
    assert "outputSchema" in new_tool and new_result["structuredContent"] == {"sum": 3}


def test_14_a_session_s_client_capabilities_are_what_its_revision_has(linked: dict[str, ModuleType]) -> None:
    pkg = linked[MULTI]
    seen: list[Any] = []

    class Looks(pkg.Server):
        async def on_call_tool(self, params: Any) -> Any:
            meta = params.model_dump(mode="json", by_alias=True, exclude_unset=True)["_meta"]
            seen.append(meta["io.modelcontextprotocol/clientCapabilities"])
            return pkg.types.CallToolResult.model_validate({"content": [], "resultType": "complete"})

    http = importlib.import_module(f"{pkg.__name__}.http")
    app = http.streamable_http_app(Looks, keepalive=None)
    declared = {"elicitation": {}, "sampling": {}, "roots": {"listChanged": True}}

    async def scenario() -> None:
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-03-26", "capabilities": declared, "clientInfo": {"name": "c", "version": "1"}}}
        answer = await exchange(app, "POST", post_headers(), body(init))
        session = answer.headers["mcp-session-id"]
        await exchange(app, "POST", post_headers(session, "2025-03-26"), b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        await exchange(app, "POST", post_headers(session, "2025-03-26"), body(call("x", {}, 1)))

    run(scenario())
    # 2025-03-26 has no elicitation; 2026-07-28's roots has no listChanged (an open object, where only
    # keys 2025-03-26 does not define would pass).
    assert seen == [{"sampling": {}, "roots": {}}]


def test_16_a_stateless_only_server_tells_an_old_client_which_versions_it_speaks(linked: dict[str, ModuleType]) -> None:
    app = app_of(linked[STATELESS])
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}
    answer = run(exchange(app, "POST", post_headers(), body(init)))
    error = answer.json()["error"]
    assert answer.status == 400 and error["code"] == -32022
    assert error["data"] == {"supported": ["2026-07-28"], "requested": "2025-06-18"} and answer.json()["id"] == 0


def test_a_session_belongs_to_whom_its_token_speaks_for(linked: dict[str, ModuleType]) -> None:
    """On a server with `auth`, another user's valid token with a session's id finds no session (404, as
    for an unknown id); the owner's refreshed token (same subject and client) goes on using it."""
    from mcpgen.runtime.auth import ResourceServer
    from mcpgen.runtime.auth.resource import AccessToken

    people = {"alice-1": ("alice", "app"), "alice-2": ("alice", "app"), "bob": ("bob", "app"), "alice-other-app": ("alice", "evil")}

    async def verify(token: str) -> AccessToken | None:
        if token not in people:
            return None
        subject, client = people[token]
        return AccessToken(token, frozenset({"mcp"}), client_id=client, subject=subject)

    app = app_of(linked[SESSION], auth=ResourceServer(verify, ["https://as.example"]))

    def bearer(token: str) -> dict[str, str]:
        return {"authorization": f"Bearer {token}"}

    async def scenario() -> dict[str, Response]:
        init = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {"protocolVersion": SESSION, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}},
        }
        opened = await exchange(app, "POST", post_headers(**bearer("alice-1")), body(init))
        session = opened.headers["mcp-session-id"]
        note = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
        assert (await exchange(app, "POST", post_headers(session, SESSION, **bearer("alice-1")), note)).status == 202
        echo = body(call("echo", {"text": "hi"}))
        answers = {
            f"{token} {method}": await exchange(
                app, method, post_headers(session, SESSION, **bearer(token)), echo if method == "POST" else b""
            )
            for token, method in [("bob", "POST"), ("alice-other-app", "POST"), ("bob", "DELETE"), ("alice-2", "POST")]
        }
        answers["unknown"] = await exchange(app, "POST", post_headers("nope", SESSION, **bearer("alice-1")), echo)
        return answers

    answers = run(scenario())
    for intruder in ("bob POST", "alice-other-app POST", "bob DELETE", "unknown"):
        assert answers[intruder].status == 404, intruder
        assert answers[intruder].json() == answers["unknown"].json(), "indistinguishable from an unknown id"
    owner = answers["alice-2 POST"]
    assert owner.status == 200 and owner.json()["result"]["content"][0]["text"] == '{"text": "hi"}', owner
    assert len(app.sessions) == 1, "bob's DELETE ended nothing"


# --- found by a hostile review (2026-11-29) -----------------------------------------------------


def test_17_a_last_event_id_with_an_endless_number_is_refused_not_a_500(linked: dict[str, ModuleType]) -> None:
    app = app_of(linked[SESSION])

    async def scenario() -> list[Response]:
        session = await open_session(app)
        headers = {**post_headers(session, SESSION), "accept": "text/event-stream"}
        # Python refuses to read more than 4300 digits as an int; no event number has more than 20
        return [await exchange(app, "GET", {**headers, "last-event-id": f"0-{'9' * digits}"}) for digits in (5000, 21)]

    for answer in run(scenario()):
        assert answer.status == 400 and "Last-Event-ID" in answer.json()["error"]["message"]
    run(app.aclose())


def test_18_a_stateless_answer_stream_keeps_no_event_for_a_replay_that_cannot_come(linked: dict[str, ModuleType]) -> None:
    pkg = linked[STATELESS]
    peer = importlib.import_module(f"{pkg.__name__}.runtime.peer")
    big = "x" * 50_000
    kept: list[int] = []

    class Chatty(tool_server(pkg, Probe())):  # type: ignore[misc]
        async def on_call_tool(self, params: Any) -> Any:
            for step in range(5):  # the first one turns the answer into an SSE stream
                await self.notify_progress({"progressToken": 7, "progress": step, "message": big})
            kept.append(sum(len(chunk) for _, chunk in peer.CONTEXT.get().route.stream.events))
            return pkg.types.CallToolResult(content=[pkg.types.TextContent(text="done")], resultType="complete")

    http = importlib.import_module(f"{pkg.__name__}.http")
    app = http.streamable_http_app(Chatty, keepalive=None)
    meta = {
        "io.modelcontextprotocol/protocolVersion": STATELESS,
        "io.modelcontextprotocol/clientCapabilities": {},
        "progressToken": 7,
    }
    headers = post_headers(None, STATELESS, **{"mcp-method": "tools/call", "mcp-name": "x"})
    answer = run(exchange(app, "POST", headers, body(call("x", {}, 1, meta))))
    events = answer.json()
    assert answer.status == 200 and len(events) == 6 and events[-1]["result"]["content"][0]["text"] == "done"
    assert [e["params"]["message"] == big for e in events[:-1]] == [True] * 5
    assert kept == [0]


def test_19_a_client_s_line_breaks_reach_the_log_escaped(linked: dict[str, ModuleType], caplog: pytest.LogCaptureFixture) -> None:
    app = app_of(linked[STATELESS])
    forged = {"jsonrpc": "2.0", "method": "notifications/x\nERROR forged line"}
    with caplog.at_level("DEBUG"):
        answer = run(exchange(app, "POST", post_headers(None, STATELESS), body(forged)))
    assert answer.status in (202, 400)
    assert caplog.records and all("\n" not in record.getMessage() for record in caplog.records)


def test_20_a_new_session_takes_the_place_of_the_idlest_and_only_busy_sessions_refuse_it(linked: dict[str, ModuleType]) -> None:
    app = app_of(linked[SESSION], max_sessions=2)
    init = body({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": SESSION, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}})
    ping = body({"jsonrpc": "2.0", "id": 1, "method": "ping"})

    async def scenario() -> tuple[list[int], list[str], Response, list[Response], Response]:
        a = await open_session(app)
        b = await open_session(app)
        assert (await exchange(app, "POST", post_headers(a, SESSION), ping)).status == 200  # b is now the idlest
        c = await open_session(app)
        statuses = [(await exchange(app, "POST", post_headers(s, SESSION), ping)).status for s in (a, b, c)]
        live = list(app.sessions)
        slow = [
            asyncio.ensure_future(exchange(app, "POST", post_headers(s, SESSION), body(call("slow", {"seconds": 0.5, "tag": s}, 2))))
            for s in (a, c)
        ]
        await asyncio.sleep(0.1)
        refused = await exchange(app, "POST", post_headers(), init)  # every session is busy
        answers = await asyncio.gather(*slow)
        return statuses, live, refused, answers, await exchange(app, "POST", post_headers(), init)

    statuses, live, refused, answers, admitted = run(scenario())
    assert statuses == [200, 404, 200] and len(live) == 2
    assert refused.status == 503 and refused.headers["retry-after"] == "1"
    assert [answer.json()["result"]["content"][0]["text"] for answer in answers] == live
    assert admitted.status == 200 and len(app.sessions) == 2
    run(app.aclose())


def test_21_a_content_length_of_odd_digits_and_json_nested_too_deeply_get_their_own_answers(linked: dict[str, ModuleType]) -> None:
    app = app_of(linked[SESSION])
    ping = body({"jsonrpc": "2.0", "id": 1, "method": "ping"})

    async def scenario() -> list[Response]:
        session = await open_session(app)
        headers = post_headers(session, SESSION)
        answers = [
            # uvicorn refuses both before an app sees them; a more lenient server may not
            await exchange(app, "POST", {**headers, "content-length": length}, ping) for length in ("\u00b2", "9" * 5000)
        ]
        deep = b'{"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"_meta": {"x": ' + b"[" * 400 + b"]" * 400 + b"}}}"
        return [*answers, await exchange(app, "POST", headers, deep)]

    odd, endless, deep = run(scenario())
    assert odd.status == 200 and odd.json()["result"] == {}
    assert endless.status == 413
    assert deep.json()["error"] == {"code": -32700, "message": "Parse error: nested too deeply"}
    run(app.aclose())
