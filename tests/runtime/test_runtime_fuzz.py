"""Property-based fuzzing of both transports of the runtime source: any JSON value in any envelope field,
and any bytes, get a JSON-RPC error or a correct answer; never an escaping exception, a crash, a 500 or a
traceback; the server still answers a normal call afterwards, and leaves no task behind.

Budget: `HYPOTHESIS_PROFILE=ci` (the default, set in tests/test_fuzz.py) or `long`.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
from types import ModuleType
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from asgi import exchange, post_headers

FIELDS = ("jsonrpc", "id", "method", "params", "result", "error")
CODES = {-32700, -32600, -32601, -32602, -32603, -32020, -32022, -32021}
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
    | st.sampled_from(
        ["\ud800", "tools/call", "initialize", "ping", "2.0", "notifications/cancelled"]
    )
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=15,
)
FUZZ = settings(
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)


class Tracebacks(logging.Handler):
    """Collects every log record that carries a traceback."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.found.append(self.format(record))


@pytest.fixture
def tracebacks() -> Iterator[Tracebacks]:
    handler = Tracebacks()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)


def mutated(base: dict[str, Any], field: str, value: Any, drop: bool) -> bytes | dict[str, Any]:
    message = dict(base)
    if drop:
        message.pop(field, None)
    else:
        message[field] = value
    try:
        return json.dumps(message).encode("utf-8", "surrogatepass")
    except (ValueError, TypeError):
        return message


def server_class(pkg: ModuleType) -> type:
    stateless = bool(pkg.revisions.MODERN_VERSIONS)

    class Tools(pkg.Server):
        async def on_list_tools(self, params: Any) -> Any:
            body: dict[str, Any] = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
            if stateless:
                body.update(resultType="complete", cacheScope="private", ttlMs=0)
            return pkg.types.ListToolsResult.model_validate(body)

        async def on_call_tool(self, params: Any) -> Any:
            text = json.dumps(params.arguments, ensure_ascii=False)
            body = {
                "content": [{"type": "text", "text": text}],
                **({"resultType": "complete"} if stateless else {}),
            }
            return pkg.types.CallToolResult.model_validate(body)

    return Tools


def check_replies(replies: list[Any]) -> None:
    """Every reply is a JSON-RPC response: a result, or an error with a JSON-RPC code, id a usable id or null."""
    for reply in replies:
        assert isinstance(reply, dict) and reply.get("jsonrpc") == "2.0", reply
        assert ("result" in reply) != ("error" in reply), reply
        request_id = reply.get("id")
        assert request_id is None or (
            isinstance(request_id, (int, str)) and not isinstance(request_id, bool)
        )
        if "error" in reply:
            assert reply["error"]["code"] in CODES, reply
            assert "Traceback" not in json.dumps(reply)


# --- stdio -------------------------------------------------------------------------------------


class Pipe:
    """A stdio Connection of the runtime source with what it writes kept as decoded lines."""

    def __init__(self, pkg: ModuleType, server: Any) -> None:
        from mcpgen.runtime.stdio import Connection

        self.lines: list[bytes] = []

        async def write(data: bytes) -> None:
            self.lines.append(data)

        self.connection = Connection(server, write)
        server.attach(self.connection)

    async def send(self, line: bytes) -> list[Any]:
        start = len(self.lines)
        await self.connection.receive(line)
        while self.connection._tasks:
            await asyncio.gather(*self.connection._tasks, return_exceptions=True)
        return [json.loads(line) for line in self.lines[start:]]


@pytest.fixture(params=["2025-11-25", "2026-07-28", "2024-11-05..2026-07-28"])
def stdio_pipe(
    request: pytest.FixtureRequest, linked: dict[str, ModuleType]
) -> Iterator[tuple[Any, Pipe, asyncio.AbstractEventLoop]]:
    pkg = linked[request.param]
    loop = asyncio.new_event_loop()
    pipe = Pipe(pkg, server_class(pkg)())
    yield pkg, pipe, loop
    loop.close()


KINDS = ("request", "notification", "response", "error")


def base_message(pkg: ModuleType, kind: str) -> dict[str, Any]:
    """A well-formed message of `kind` that the fuzzer then bends one field of."""
    if kind == "request":
        return normal_call(pkg, 7)
    if kind == "notification":
        return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}
    if kind == "response":
        return {"jsonrpc": "2.0", "id": 1, "result": {}}
    return {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "m"}}


def normal_call(pkg: ModuleType, request_id: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "echo", "arguments": {"x": 1}}
    if pkg.revisions.MODERN_VERSIONS:
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": pkg.SUPPORTED_VERSIONS[-1],
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
        }
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


@FUZZ
@given(
    kind=st.sampled_from(KINDS),
    field=st.sampled_from(FIELDS),
    value=json_values,
    drop=st.booleans(),
    raw=st.none() | st.binary(max_size=200),
)
def test_stdio_answers_any_line_with_json_rpc_and_keeps_serving(
    stdio_pipe: tuple[Any, Pipe, asyncio.AbstractEventLoop],
    tracebacks: Tracebacks,
    kind: str,
    field: str,
    value: Any,
    drop: bool,
    raw: bytes | None,
) -> None:
    pkg, pipe, loop = stdio_pipe
    base = base_message(pkg, kind)
    line = raw if raw is not None else mutated(base, field, value, drop)
    data = (
        line
        if isinstance(line, bytes)
        else json.dumps(line, ensure_ascii=False).encode("utf-8", "surrogatepass")
    )
    replies = loop.run_until_complete(pipe.send(data.replace(b"\n", b" ")))
    check_replies(replies)
    after = loop.run_until_complete(pipe.send(json.dumps(normal_call(pkg, "after")).encode()))
    assert [r.get("id") for r in after] == ["after"] and "result" in after[0], after
    assert tracebacks.found == []
    assert len(asyncio.all_tasks(loop)) == 0


# --- Streamable HTTP ----------------------------------------------------------------------------


class Endpoint:
    """An app of the runtime source serving one package, with a session opened (session era)."""

    def __init__(self, pkg: ModuleType, loop: asyncio.AbstractEventLoop) -> None:
        self.pkg, self.loop = pkg, loop
        http = importlib.import_module(f"{pkg.__name__}.http")
        self.app = http.streamable_http_app(server_class(pkg), keepalive=None)
        self.session: str | None = None
        self.version = pkg.SUPPORTED_VERSIONS[-1]
        if not pkg.revisions.MODERN_VERSIONS:
            init = {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": self.version,
                    "capabilities": {},
                    "clientInfo": {"name": "c", "version": "1"},
                },
            }
            answer = self.post(json.dumps(init).encode())
            self.session = answer.headers["mcp-session-id"]
            self.post(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')

    def headers(self, body: Any) -> dict[str, str]:
        if self.session is not None:
            return post_headers(self.session, self.version)
        method = body.get("method") if isinstance(body, dict) else None
        extra = (
            {"mcp-method": method}
            if isinstance(method, str) and method.isascii() and method.isprintable()
            else {}
        )
        params = body.get("params") if isinstance(body, dict) else None
        name = params.get("name") if isinstance(params, dict) else None
        if isinstance(name, str) and name.isascii() and name.isprintable():
            extra["mcp-name"] = name
        return post_headers(None, self.version, **extra)

    def post(self, data: bytes, body: Any = None) -> Any:
        return self.loop.run_until_complete(exchange(self.app, "POST", self.headers(body), data))


@pytest.fixture(params=["2025-11-25", "2026-07-28"])
def http_endpoint(
    request: pytest.FixtureRequest, linked: dict[str, ModuleType]
) -> Iterator[Endpoint]:
    loop = asyncio.new_event_loop()
    endpoint = Endpoint(linked[request.param], loop)
    yield endpoint
    loop.run_until_complete(endpoint.app.aclose())
    loop.close()


@FUZZ
@given(
    kind=st.sampled_from(KINDS),
    field=st.sampled_from(FIELDS),
    value=json_values,
    drop=st.booleans(),
    raw=st.none() | st.binary(max_size=200),
)
def test_http_answers_any_body_with_json_rpc_never_a_500_and_keeps_serving(
    http_endpoint: Endpoint,
    tracebacks: Tracebacks,
    kind: str,
    field: str,
    value: Any,
    drop: bool,
    raw: bytes | None,
) -> None:
    endpoint = http_endpoint
    base = base_message(endpoint.pkg, kind)
    message = mutated(base, field, value, drop) if raw is None else raw
    if isinstance(message, dict):
        data = json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass")
        body: Any = message
    else:
        data, body = message, None
        try:
            body = json.loads(data)
        except ValueError:
            pass
    sessions = len(endpoint.app.sessions)
    answer = endpoint.post(data, body)
    assert answer.status in (200, 202, 400, 404), (answer.status, answer.body[:300])
    assert b"Traceback" not in answer.body
    if answer.body:
        replies = answer.json()
        check_replies(replies if isinstance(replies, list) else [replies])
    after = endpoint.post(
        json.dumps(normal_call(endpoint.pkg, "after")).encode(), normal_call(endpoint.pkg, "after")
    )
    assert after.status == 200 and after.json()["result"]["content"], after
    assert tracebacks.found == []
    assert len(endpoint.app.sessions) <= sessions + 1  # a fuzzed `initialize` may open one session
    left = [t for t in asyncio.all_tasks(endpoint.loop) if not t.done()]
    assert len(left) <= 1, left  # the idle-session sweeper only: no task left behind by a request
