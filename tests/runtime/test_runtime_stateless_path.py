"""The stateless era's request path (runtime/http/stateless.py): every request gets a server of its own,
freed by reference counting once answered, and no request ever sees another's state, however many
run at once and whoever sends them."""

from __future__ import annotations

import asyncio
import gc
import importlib
import json
import weakref
from types import ModuleType
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from asgi import exchange, post_headers
from wiring import V26, meta, request, run

PEOPLE = {f"token-{n}": f"user-{n}" for n in range(6)}


def recording_server(pkg: ModuleType, made: list[Any]) -> type:
    """A server of `pkg` whose `echo` tool keeps the request's argument, principal and version on the
    server after waiting a loop turn or more (so concurrent requests interleave), and answers what it kept;
    every instance is recorded in `made` (weakly)."""
    t = pkg.types
    auth = importlib.import_module(f"{pkg.__name__}.auth")
    resource = importlib.import_module(f"{pkg.__name__}.runtime.auth.resource")

    class Recording(pkg.Server):
        def __init__(self) -> None:
            made.append(weakref.ref(self))
            self.kept: list[Any] = []

        async def on_list_tools(self, params: Any) -> Any:
            tools = [{"name": "echo", "inputSchema": {"type": "object"}}]
            listing = {
                "tools": tools,
                "ttlMs": 0,
                "cacheScope": "private",
                "resultType": "complete",
            }
            return t.ListToolsResult.model_validate(listing)

        async def on_call_tool(self, params: Any) -> Any:
            text = str((params.arguments or {}).get("text"))
            for _ in range(len(text) % 4):
                await asyncio.sleep(0)
            token = resource.access_token()
            self.kept.append(
                (text, token.subject if token is not None else None, self.protocol_version)
            )
            await asyncio.sleep(0)
            text = json.dumps(self.kept)
            return t.CallToolResult(content=[t.TextContent(type="text", text=text)])

    assert auth.ResourceServer is resource.ResourceServer
    return Recording


def app_with(pkg: ModuleType, make_server: Any) -> Any:
    """`pkg`'s app serving `make_server`'s servers, admitting the bearer tokens of `PEOPLE`."""
    http = importlib.import_module(f"{pkg.__name__}.http")
    resource = importlib.import_module(f"{pkg.__name__}.runtime.auth.resource")

    async def verify(token: str) -> Any:
        subject = PEOPLE.get(token)
        return None if subject is None else resource.AccessToken(token, subject=subject)

    auth = resource.ResourceServer(verify, ["https://as.example"])
    return http.streamable_http_app(make_server, keepalive=None, auth=auth)


def echo_call(text: str, token: str, request_id: int) -> tuple[dict[str, str], bytes]:
    """The headers and body of a stateless `tools/call` of `echo` with `text`, sent with `token`."""
    message = request(
        "tools/call", {"name": "echo", "arguments": {"text": text}, "_meta": meta()}, request_id
    )
    headers = post_headers(
        None,
        V26,
        authorization=f"Bearer {token}",
        **{"mcp-method": "tools/call", "mcp-name": "echo"},
    )
    return headers, json.dumps(message).encode()


def all_at_once(app: Any, calls: list[tuple[str, str]]) -> list[Any]:
    """The answers of `app` to an `echo` call of each (text, token) in `calls`, all sent at once."""

    async def scenario() -> list[Any]:
        exchanges = [
            exchange(app, "POST", *echo_call(text, token, n + 1))
            for n, (text, token) in enumerate(calls)
        ]
        return list(await asyncio.gather(*exchanges))

    answers: list[Any] = run(scenario())
    return answers


def test_a_stateless_requests_server_is_freed_without_the_cycle_collector(v26: ModuleType) -> None:
    made: list[Any] = []
    app = app_with(v26, recording_server(v26, made))

    async def scenario() -> list[int]:
        statuses = []
        for n in range(20):
            headers, body = echo_call(f"hi {n}", f"token-{n % 6}", n + 1)
            statuses.append((await exchange(app, "POST", headers, body)).status)
        await asyncio.sleep(0)
        return statuses

    gc.collect()
    gc.disable()
    try:
        statuses = run(scenario())
        alive = [ref for ref in made if ref() is not None]
    finally:
        gc.enable()
    assert statuses == [200] * 20 and len(made) == 20
    assert alive == []


def test_concurrent_stateless_requests_see_only_their_own_state(v26: ModuleType) -> None:
    made: list[Any] = []
    app = app_with(v26, recording_server(v26, made))
    calls = [(f"{'x' * (n % 5)}arg-{n}", f"token-{n % 6}") for n in range(40)]

    answers = all_at_once(app, calls)
    for (text, token), answer in zip(calls, answers):
        assert answer.status == 200, answer.body
        kept = json.loads(answer.json()["result"]["content"][0]["text"])
        assert kept == [[text, PEOPLE[token], V26]]


def test_one_server_shared_by_concurrent_stateless_requests_still_answers_each(
    v26: ModuleType,
) -> None:
    """A `make_server` that hands out one server for every request: its endpoint is let go only when no
    request is in flight on it, so concurrent requests are all answered, each with its own arguments.
    """
    made: list[Any] = []
    shared = recording_server(v26, made)()
    app = app_with(v26, lambda: shared)
    calls = [(f"{'y' * (n % 3)}{n}", f"token-{n % 6}") for n in range(24)]

    answers = all_at_once(app, calls)
    assert [a.status for a in answers] == [200] * len(calls)
    assert sorted(tuple(k) for k in shared.kept) == sorted(
        (text, PEOPLE[token], V26) for text, token in calls
    )


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
CALLS = st.one_of(
    st.tuples(st.just("tools/call"), st.dictionaries(st.text(max_size=6), JSON, max_size=3)),
    st.tuples(st.just("tools/list"), st.none()),
    st.tuples(st.just("discover"), st.none()),
)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(calls=st.lists(st.tuples(CALLS, st.sampled_from(sorted(PEOPLE))), min_size=1, max_size=6))
def test_the_stateless_path_answers_as_a_fresh_server_handling_the_message(
    v26: ModuleType, calls: list[tuple[tuple[str, Any], str]]
) -> None:
    """Run at once over HTTP, each request is answered as a fresh server answers it when handed the
    message directly (the peer's own path, no HTTP, no endpoint let go): the server the stateless era
    made for it, and freed after, changes nothing."""
    made: list[Any] = []
    server_class = recording_server(v26, made)
    app = app_with(v26, server_class)
    peer = importlib.import_module(f"{v26.__name__}.runtime.peer")
    resource = importlib.import_module(f"{v26.__name__}.runtime.auth.resource")

    discover = v26.revisions.REVISIONS[V26].modern.discover

    def message(n: int, method: str, arguments: Any) -> dict[str, Any]:
        params: dict[str, Any] = {"_meta": meta()}
        method = discover if method == "discover" else method
        if method == "tools/call":
            params.update(name="echo", arguments=arguments)
        return request(method, params, n + 1)

    async def over_http(n: int, method: str, arguments: Any, token: str) -> Any:
        sent = message(n, method, arguments)
        headers = post_headers(
            None, V26, authorization=f"Bearer {token}", **{"mcp-method": sent["method"]}
        )
        if method == "tools/call":
            headers["mcp-name"] = "echo"
        answer = await exchange(app, "POST", headers, json.dumps(sent).encode())
        assert answer.status == 200, answer.body
        return answer.json()

    async def directly(n: int, method: str, arguments: Any, token: str) -> Any:
        server = server_class()
        access = resource.ACCESS.set(resource.AccessToken(token, subject=PEOPLE[token]))
        inbound = peer.INBOUND.set(peer.Inbound(server, None, V26))
        try:
            return await server.handle(message(n, method, arguments))
        finally:
            peer.INBOUND.reset(inbound)
            resource.ACCESS.reset(access)

    async def scenario() -> tuple[list[Any], list[Any]]:
        jobs = [
            (n, method, arguments, token) for n, ((method, arguments), token) in enumerate(calls)
        ]
        http = await asyncio.gather(*(over_http(*job) for job in jobs))
        direct = [await directly(*job) for job in jobs]
        return list(http), direct

    http, direct = run(scenario())
    assert http == direct


def test_a_revisions_lifecycle_facts_are_its_lifecycles(v26: ModuleType, multi: ModuleType) -> None:
    """The facts a revision reads once (cached) are what its lifecycle says."""
    for pkg in (v26, multi):
        for revision in pkg.revisions.REVISIONS.values():
            lifecycle = revision.lifecycle
            legacy, modern = lifecycle.legacy, lifecycle.modern
            assert (revision.era, revision.legacy, revision.modern) == (
                lifecycle.era,
                legacy,
                modern,
            )
            assert (revision.ping, revision.cancelled, revision.cancelled_id_key) == (
                lifecycle.ping,
                lifecycle.cancelled,
                lifecycle.cancelled_id_key,
            )
            assert revision.input_required == lifecycle.input_required
            expected = legacy.method if legacy else modern.discover if modern else None
            assert revision.handshake == expected and expected is not None


ACTIONS = st.lists(st.sampled_from(["progress", "ask", "late", "fail"]), max_size=5)
"""What a handler does before it answers: a progress notification, a request to the client (which this
revision cannot send over HTTP), a notification sent after its answer, or failing with an error."""


def acting_server(pkg: ModuleType, late: list[asyncio.Task[Any]]) -> type:
    """A server whose `act` tool does the actions its `do` argument lists, in order, then answers what it saw."""
    t = pkg.types
    jsonrpc = importlib.import_module(f"{pkg.__name__}.runtime.jsonrpc")
    peer = importlib.import_module(f"{pkg.__name__}.runtime.peer")

    class Acting(pkg.Server):
        async def on_list_tools(self, params: Any) -> Any:
            listing = {"tools": [{"name": "act", "inputSchema": {"type": "object"}}], "ttlMs": 0}
            listing.update(cacheScope="private", resultType="complete")
            return t.ListToolsResult.model_validate(listing)

        async def on_call_tool(self, params: Any) -> Any:
            seen = []
            for n, action in enumerate((params.arguments or {}).get("do", [])):
                if action == "progress":
                    await self.notify_progress({"progressToken": "p", "progress": n})
                elif action == "ask":
                    try:
                        await self.send_request("ping", None)
                    except jsonrpc.ProtocolError as exc:
                        seen.append(exc.code)
                elif action == "late":
                    context = peer.CONTEXT.get()
                    assert context is not None and context.route is not None
                    route = context.route  # the channel of this request's answer, kept past it

                    async def after(n: int = n, route: Any = route) -> None:
                        await asyncio.sleep(0.01)
                        progress = {"progressToken": "p", "progress": n}
                        await route.notify("notifications/progress", progress)

                    late.append(asyncio.ensure_future(after()))
                else:
                    raise jsonrpc.ProtocolError(-32042, f"failed at {n}")
            text = json.dumps(seen)
            return t.CallToolResult(content=[t.TextContent(type="text", text=text)])

    return Acting


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(actions=st.lists(ACTIONS, min_size=1, max_size=4))
def test_a_handler_answers_json_unless_it_sent_something_first(
    v26: ModuleType, actions: list[list[str]]
) -> None:
    """Requests served at once, each doing its own actions: one that sent a notification before its answer
    gets an SSE answer (its notifications in order, then the answer), any other a plain JSON answer; a
    request to the client is refused (-32603) and a notification sent after the answer reaches no one.
    """
    http = importlib.import_module(f"{v26.__name__}.http")
    late: list[asyncio.Task[Any]] = []
    app = http.streamable_http_app(acting_server(v26, late), keepalive=None)

    async def scenario() -> list[Any]:
        calls = []
        for n, do in enumerate(actions):
            params = {"name": "act", "arguments": {"do": do}, "_meta": meta(progressToken="p")}
            headers = post_headers(None, V26, **{"mcp-method": "tools/call", "mcp-name": "act"})
            calls.append(
                exchange(
                    app, "POST", headers, json.dumps(request("tools/call", params, n)).encode()
                )
            )
        answers = list(await asyncio.gather(*calls))
        assert await asyncio.gather(*late) == [None] * len(late)  # dropped
        assert not app._post_stateless.__self__.open_streams  # nothing kept once answered
        return answers

    for n, (do, answer) in enumerate(zip(actions, run(scenario()))):
        done = do[: do.index("fail")] if "fail" in do else do
        progress = [i for i, action in enumerate(done) if action == "progress"]
        if "fail" in do:
            last: dict[str, Any] = {"code": -32042, "message": f"failed at {len(done)}"}
        else:
            text = json.dumps([-32603] * done.count("ask"))
            last = {"content": [{"type": "text", "text": text}], "resultType": "complete"}
        messages = answer.json()
        if progress:
            assert answer.headers["content-type"] == "text/event-stream"
            assert [m["params"]["progress"] for m in messages[:-1]] == progress
            assert all(m["method"] == "notifications/progress" for m in messages[:-1])
            final = messages[-1]
        else:
            assert answer.headers["content-type"] == "application/json"
            final = messages
        assert final["id"] == n
        assert final.get("error", final.get("result")) == last
