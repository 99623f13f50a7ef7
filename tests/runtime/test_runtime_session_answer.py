"""A session-era POST's answer (runtime/http/session.py `Answer`): its SSE stream is made only once the
handler sends something before its answer, and then carries what a stream made with the POST carried:
the priming event `<key>-0` and each message numbered after it, the key being the POST's place among
the session's requests (a POST answered with plain JSON takes one too), resumable with `Last-Event-ID`
after `close_sse_stream` or a disconnect. A handler that just returns gets plain JSON, and its key names
no stream; a session ended while a request runs answers it 404, or ends its stream without an answer.

The expected frames come from a model of the transport written here (`expected`), not from the code.
"""

from __future__ import annotations

import asyncio
import importlib
import json
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from asgi import Response, exchange, post_headers
from wiring import V25, initialize, notification, request, run

STEPS = st.lists(st.sampled_from(["notify", "ask", "wait", "close", "disconnect"]), max_size=4)
"""What a handler does before it returns: notify, ask the client (a ping), wait a loop turn, end its SSE
connection (`close_sse_stream`), or have its client disconnect."""
RETRY_MS = 1000


@dataclass
class Control:
    """What the test and the handlers share: the client's disconnect, the pings the client answers, and
    a handler held until the session is deleted."""

    gone: asyncio.Event = field(default_factory=asyncio.Event)
    pings: asyncio.Queue[None] = field(default_factory=asyncio.Queue)
    held: asyncio.Event = field(default_factory=asyncio.Event)
    late: asyncio.Event = field(default_factory=asyncio.Event)
    sent_late: asyncio.Event = field(default_factory=asyncio.Event)
    tasks: list[asyncio.Future[None]] = field(default_factory=list)


def acting_server(pkg: ModuleType, control: Control) -> type:
    """A server of `pkg` whose `act` tool runs the steps it is given, then answers them as text; `hold`
    notifies (when told to) and then waits until it is cancelled; `later` answers at once and notifies
    from a task of its own once `control.late` is set."""
    t = pkg.types
    http = importlib.import_module(f"{pkg.__name__}.http")

    class Acting(pkg.Server):
        async def on_call_tool(self, params: Any) -> Any:
            arguments = params.arguments or {}
            if params.name == "hold":
                if arguments.get("notify"):
                    await self.notify_progress({"progressToken": "h", "progress": 0})
                control.held.set()
                await asyncio.Event().wait()
            if params.name == "later":

                async def late() -> None:
                    await control.late.wait()
                    await self.notify_progress({"progressToken": "l", "progress": 1})
                    control.sent_late.set()

                control.tasks.append(asyncio.ensure_future(late()))
                return t.CallToolResult(content=[])
            steps = arguments["steps"]
            for n, step in enumerate(steps):
                if step == "notify":
                    await self.notify_progress({"progressToken": "p", "progress": n})
                elif step == "ask":
                    control.pings.put_nowait(None)
                    await self.ping()
                elif step == "close":
                    await http.close_sse_stream()
                elif step == "disconnect":
                    control.gone.set()
                if step in ("wait", "disconnect"):
                    for _ in range(
                        20
                    ):  # the disconnect watch and the stream's release run meanwhile
                        await asyncio.sleep(0)
            return t.CallToolResult(content=[t.TextContent(type="text", text=json.dumps(steps))])

    return Acting


@dataclass
class Expected:
    """What a POST's client receives: plain JSON, or SSE events on the POST's connection and, if that
    connection ended before the answer, the events a GET with `Last-Event-ID` replays."""

    json: bool
    posted: list[tuple[Any, ...]]
    resumed: list[tuple[Any, ...]]


def expected(key: int, steps: list[str], pings: list[int]) -> Expected:
    """The model: what a stream made when the POST came would send for `steps` (ids of the pings taken
    from `pings`): events numbered from the priming `key-0`, written while the POST's connection holds
    the stream, kept for resumption once it let go (`close_sse_stream`, or a disconnect seen while the
    handler waits)."""
    posted: list[tuple[Any, ...]] = []
    resumed: list[tuple[Any, ...]] = []
    started = attached = gone = False
    seq = 0

    def event(summary: tuple[Any, ...]) -> None:
        nonlocal seq, started, attached
        if not started:
            started = attached = True
            posted.append((f"{key}-0", str(RETRY_MS), None))
        seq += 1
        (posted if attached else resumed).append((f"{key}-{seq}", None, summary))

    for n, step in enumerate(steps):
        if step == "notify":
            event(("notifications/progress", None, n))
        elif step == "ask":
            event(("ping", pings.pop(0), None))
        elif step == "close":
            if not started:
                started = attached = True
                posted.append((f"{key}-0", str(RETRY_MS), None))
            attached = False
        elif step == "disconnect" and not gone:
            gone = True  # the first disconnect ends the watch: a later one changes nothing
            attached = False
    if not started:
        return Expected(True, [], [])
    event(("result", None, json.dumps(steps)))
    return Expected(False, posted, resumed)


def events(body: bytes) -> list[tuple[Any, ...]]:
    """The SSE events of a body: id, retry and a summary of the message (None for the priming event)."""
    found = []
    for block in body.decode("utf-8").split("\n\n"):
        if not block:
            continue
        fields = dict(line.split(": ", 1) for line in block.split("\n"))
        assert set(fields) <= {"id", "retry", "data"}, block
        data = json.loads(fields["data"]) if fields.get("data") else None
        found.append((fields.get("id"), fields.get("retry"), summary(data)))
    return found


def summary(message: Any) -> tuple[Any, ...] | None:
    """A message as the model writes it: method (or "result"), request id, progress or result text."""
    if message is None:
        return None
    assert message["jsonrpc"] == "2.0"
    if "result" in message:
        return ("result", None, message["result"]["content"][0]["text"])
    if message["method"] == "ping":
        return ("ping", message["id"], None)
    return (message["method"], None, message["params"]["progress"])


async def until_gone(
    app: Any,
    method: str,
    headers: dict[str, str],
    message: Any,
    gone: asyncio.Event,
    sent: list[dict[str, Any]] | None = None,
) -> Response:
    """A request whose client goes once `gone` is set; what reached it up to the end of its answer (and
    that nothing is written after that end), the messages written kept in `sent`."""
    sent = [] if sent is None else sent
    body = b"" if message is None else json.dumps(message).encode()
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict[str, Any]:
        if pending:
            return pending.pop(0)
        await gone.wait()
        return {"type": "http.disconnect"}

    async def send(sending: dict[str, Any]) -> None:
        sent.append(sending)

    scope = {
        "type": "http",
        "method": method,
        "path": "/mcp",
        "root_path": "",
        "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()],
        "server": ("127.0.0.1", 8000),
    }
    await asyncio.wait_for(app(scope, receive, send), 10)
    start, *rest = sent
    assert start["type"] == "http.response.start"
    ends = [n for n, m in enumerate(rest) if not m.get("more_body", False)]
    assert ends and ends[0] == len(rest) - 1, "nothing is written after the answer's end"
    return Response(
        start["status"],
        {k.decode("latin-1"): v.decode("latin-1") for k, v in start["headers"]},
        b"".join(m.get("body", b"") for m in rest),
    )


async def answer_pings(app: Any, headers: dict[str, str], control: Control) -> None:
    """The client's side of the handlers' pings: each answered with a POST, in the order they come."""
    ping_id = 0
    while True:
        await control.pings.get()
        ping_id += 1
        reply = {"jsonrpc": "2.0", "id": ping_id, "result": {}}
        answered = await exchange(app, "POST", headers, json.dumps(reply).encode())
        assert answered.status == 202


async def open_session(app: Any) -> str:
    """A session opened (it takes key 1: the handshake is its first request) and initialized."""
    opened = await exchange(app, "POST", post_headers(), json.dumps(initialize(V25)).encode())
    assert opened.status == 200 and opened.headers["content-type"] == "application/json"
    session: str = opened.headers["mcp-session-id"]
    done = notification("notifications/initialized")
    ok = await exchange(app, "POST", post_headers(session, V25), json.dumps(done).encode())
    assert ok.status == 202
    return session


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(posts=st.lists(STEPS, min_size=1, max_size=3))
def test_a_post_s_answer_is_json_or_the_stream_a_stream_made_at_once_gives(
    v25: ModuleType, posts: list[list[str]]
) -> None:
    async def scenario() -> None:
        control = Control()
        http = importlib.import_module(f"{v25.__name__}.http")
        app = http.streamable_http_app(
            acting_server(v25, control), keepalive=None, retry_ms=RETRY_MS
        )
        session = await open_session(app)
        headers = post_headers(session, V25)
        responder = asyncio.ensure_future(answer_pings(app, headers, control))
        pings = iter(range(1, 100))
        try:
            for n, steps in enumerate(posts):
                control.gone = asyncio.Event()
                key = n + 2
                want = expected(key, steps, [next(pings) for _ in range(steps.count("ask"))])
                call = request("tools/call", {"name": "act", "arguments": {"steps": steps}}, n + 1)
                got = await until_gone(app, "POST", headers, call, control.gone)
                assert got.status == 200 and got.headers["mcp-session-id"] == session
                last = f"{key}-0"
                if want.json:
                    assert got.headers["content-type"] == "application/json"
                    assert got.json()["result"]["content"][0]["text"] == json.dumps(steps)
                else:
                    assert got.headers["content-type"] == "text/event-stream"
                    assert events(got.body) == want.posted
                    last = want.posted[-1][0]
                get = {"host": "127.0.0.1:8000", "accept": "text/event-stream"}
                get.update({"mcp-session-id": session, "last-event-id": last})
                resumed = await exchange(app, "GET", get)
                if want.json:  # no stream was kept under its key
                    assert resumed.status == 400
                    assert (
                        resumed.json()["error"]["message"] == "Bad Request: unknown Last-Event-ID"
                    )
                else:
                    assert resumed.status == 200 and events(resumed.body) == want.resumed
        finally:
            responder.cancel()

    run(scenario(), timeout=30)


def test_a_session_ended_while_its_request_runs_answers_it_404_or_ends_its_stream(
    v25: ModuleType,
) -> None:
    async def scenario(notify: bool) -> tuple[str, Response]:
        control = Control()
        http = importlib.import_module(f"{v25.__name__}.http")
        app = http.streamable_http_app(
            acting_server(v25, control), keepalive=None, retry_ms=RETRY_MS
        )
        session = await open_session(app)
        headers = post_headers(session, V25)
        call = request("tools/call", {"name": "hold", "arguments": {"notify": notify}}, 1)
        running = asyncio.ensure_future(until_gone(app, "POST", headers, call, control.gone))
        await control.held.wait()
        deleted = await exchange(app, "DELETE", {**headers, "accept": "application/json"})
        assert deleted.status == 200
        return session, await running

    session, answer = run(scenario(notify=False))
    assert answer.status == 404 and answer.body == b""
    assert answer.headers == {"mcp-session-id": session, "content-length": "0"}
    session, answer = run(scenario(notify=True))
    assert answer.status == 200 and answer.headers["content-type"] == "text/event-stream"
    assert events(answer.body) == [
        ("2-0", str(RETRY_MS), None),
        ("2-1", None, ("notifications/progress", None, 0)),
    ]


def test_what_a_handler_sends_after_its_json_answer_goes_on_the_session_s_get_stream(
    v25: ModuleType,
) -> None:
    async def scenario() -> tuple[list[dict[str, Any]], Response]:
        control = Control()
        http = importlib.import_module(f"{v25.__name__}.http")
        app = http.streamable_http_app(
            acting_server(v25, control), keepalive=None, retry_ms=RETRY_MS
        )
        session = await open_session(app)
        headers = post_headers(session, V25)
        sent: list[dict[str, Any]] = []
        call = request("tools/call", {"name": "later", "arguments": {}}, 1)
        answer = await until_gone(app, "POST", headers, call, control.gone, sent)
        assert answer.status == 200 and answer.json()["result"] == {"content": []}
        control.late.set()
        await control.sent_late.wait()
        gone = asyncio.Event()
        asyncio.get_running_loop().call_later(0.05, gone.set)
        get = {"host": "127.0.0.1:8000", "accept": "text/event-stream", "mcp-session-id": session}
        return sent, await until_gone(app, "GET", get, None, gone)

    sent, standalone = run(scenario())
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert standalone.status == 200 and events(standalone.body) == [
        ("0-0", str(RETRY_MS), None),
        ("0-1", None, ("notifications/progress", None, 1)),
    ]
