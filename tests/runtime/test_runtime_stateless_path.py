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

from asgi import exchange, post_headers
from wiring import V26, meta, request, run

PEOPLE = {f"token-{n}": f"user-{n}" for n in range(6)}


def recording_server(pkg: ModuleType, made: list[Any]) -> type:
    """A server of `pkg` whose `echo` tool keeps the request's argument, principal and version on the
    server, waits a loop turn or more (so concurrent requests interleave), and answers what it kept;
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
            token = resource.access_token()
            self.kept.append(
                (
                    (params.arguments or {}).get("text"),
                    token.subject if token is not None else None,
                    self.protocol_version,
                )
            )
            for _ in range(len(str((params.arguments or {}).get("text"))) % 4):
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

    async def scenario() -> list[Any]:
        exchanges = [
            exchange(app, "POST", *echo_call(text, token, n + 1))
            for n, (text, token) in enumerate(calls)
        ]
        return await asyncio.gather(*exchanges)

    answers = run(scenario())
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

    async def scenario() -> list[Any]:
        exchanges = [
            exchange(app, "POST", *echo_call(text, token, n + 1))
            for n, (text, token) in enumerate(calls)
        ]
        return await asyncio.gather(*exchanges)

    answers = run(scenario())
    assert [a.status for a in answers] == [200] * len(calls)
    assert sorted(tuple(k) for k in shared.kept) == sorted(
        (text, PEOPLE[token], V26) for text, token in calls
    )
