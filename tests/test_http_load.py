"""The generated Streamable HTTP app under load: many sessions, many requests in flight, cancellation,
clients that go away mid-stream (no task left behind, memory bounded by the replay limit)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import httpx
import pytest

from http_fixtures import Probe, call_message, initialize_message, post_headers, stateless_message, tool_app
from httpserve import serve, sse_events, wire_check


async def _session(client: httpx.AsyncClient, url: str) -> str:
    response = await client.post(url, json=initialize_message("2025-11-25"), headers=post_headers())
    session: str = response.headers["mcp-session-id"]
    done = await client.post(
        url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=post_headers("2025-11-25", session)
    )
    assert done.status_code == 202
    return session


SWEEPER = 1
"""The task that ends idle sessions: alive while the app has a session, gone with the last one."""


def _wait_for(condition: Callable[[], bool], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.01)


def test_many_sessions_with_many_requests_in_flight(packages: dict[str, ModuleType], schema_dir: Path) -> None:
    check = wire_check(schema_dir, "2025-11-25")
    probe = Probe()
    app = tool_app(packages, "2025-11-25", probe)
    sessions, per_session = 20, 10

    async def run(url: str) -> list[tuple[str, int, dict[str, Any]]]:
        limits = httpx.Limits(max_connections=sessions * per_session + 10)
        async with httpx.AsyncClient(limits=limits, timeout=30) as client:
            ids = await asyncio.gather(*(_session(client, url) for _ in range(sessions)))

            async def call(session: str, n: int) -> tuple[str, int, dict[str, Any]]:
                tag = f"{session}:{n}"
                message = call_message("slow", {"tag": tag, "seconds": 0.2}, n)
                response = await client.post(url, json=message, headers=post_headers("2025-11-25", session))
                return tag, n, response.json()

            answers = await asyncio.gather(*(call(s, n) for s in ids for n in range(1, per_session + 1)))
            for session in ids:
                gone = await client.delete(url, headers={"mcp-session-id": session})
                assert gone.status_code == 200
            return answers

    with serve(app) as served:
        baseline = served.tasks()
        answers = asyncio.run(run(served.url))
        assert served.settle(baseline) == baseline, "tasks left behind"
    assert len(answers) == sessions * per_session
    for tag, n, body in answers:
        check(body)
        assert body["id"] == n and body["result"]["content"][0]["text"] == tag
    assert probe.peak > per_session, f"requests did not overlap (at most {probe.peak} at once)"
    assert app.sessions == {}


def test_stateless_requests_in_flight_at_once(packages: dict[str, ModuleType], schema_dir: Path) -> None:
    check = wire_check(schema_dir, "2026-07-28")
    probe = Probe()
    app = tool_app(packages, "2026-07-28", probe)
    count = 100

    async def run(url: str) -> list[dict[str, Any]]:
        async with httpx.AsyncClient(limits=httpx.Limits(max_connections=count + 10), timeout=30) as client:

            async def call(n: int) -> dict[str, Any]:
                message = stateless_message(
                    "tools/call", {"name": "slow", "arguments": {"tag": str(n), "seconds": 0.2}}, "2026-07-28", n
                )
                headers = post_headers("2026-07-28", mcp_method="tools/call", mcp_name="slow")
                response = await client.post(url, json=message, headers=headers)
                body: dict[str, Any] = response.json()
                return body

            return await asyncio.gather(*(call(n) for n in range(count)))

    with serve(app) as served:
        baseline = served.tasks()
        answers = asyncio.run(run(served.url))
        assert served.settle(baseline) == baseline
    for n, body in enumerate(answers):
        check(body)
        assert body["id"] == n and body["result"]["content"][0]["text"] == str(n)
    assert probe.peak > 10


def test_cancelled_notification_stops_the_handler(packages: dict[str, ModuleType]) -> None:
    probe = Probe()
    app = tool_app(packages, "2025-11-25", probe)

    async def run(url: str) -> httpx.Response:
        async with httpx.AsyncClient(timeout=30) as client:
            session = await _session(client, url)
            headers = post_headers("2025-11-25", session)
            slow = asyncio.ensure_future(
                client.post(url, json=call_message("slow", {"tag": "c", "seconds": 30}, 7), headers=headers)
            )
            while "c" not in probe.started:
                await asyncio.sleep(0.01)
            cancel = {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": 7, "reason": "test"},
            }
            accepted = await client.post(url, json=cancel, headers=headers)
            assert accepted.status_code == 202
            return await asyncio.wait_for(slow, 10)

    with serve(app) as served:
        baseline = served.tasks() + SWEEPER  # the session stays open
        answer = asyncio.run(run(served.url))
        assert served.settle(baseline) == baseline
    assert probe.cancelled == ["c"] and "c" not in probe.finished
    # A POST of a request is answered with SSE or JSON (2025-11-25 transports); a cancelled one's stream
    # ends without a JSON-RPC response.
    assert answer.status_code == 200 and answer.headers["content-type"] == "text/event-stream"
    assert [e for e in sse_events(answer.text) if e["data"]] == [], "a cancelled request gets no JSON-RPC response"


def test_stateless_disconnect_cancels_the_handler(packages: dict[str, ModuleType]) -> None:
    probe = Probe()
    app = tool_app(packages, "2026-07-28", probe)

    async def run(url: str) -> None:
        message = stateless_message(
            "tools/call", {"name": "slow", "arguments": {"tag": "gone", "seconds": 30}}, "2026-07-28"
        )
        headers = post_headers("2026-07-28", mcp_method="tools/call", mcp_name="slow")
        async with httpx.AsyncClient(timeout=30) as client:
            request = asyncio.ensure_future(client.post(url, json=message, headers=headers))
            while "gone" not in probe.started:
                await asyncio.sleep(0.01)
            request.cancel()
            with pytest.raises(asyncio.CancelledError):
                await request

    with serve(app) as served:
        baseline = served.tasks()
        asyncio.run(run(served.url))
        _wait_for(lambda: probe.cancelled == ["gone"])
        assert served.settle(baseline) == baseline
    assert "gone" not in probe.finished


def test_session_client_leaving_mid_stream_keeps_memory_bounded(packages: dict[str, ModuleType]) -> None:
    probe = Probe()
    limit = 32
    app = tool_app(packages, "2025-11-25", probe, replay_limit=limit)
    count = 2000

    async def run(url: str) -> str:
        async with httpx.AsyncClient(timeout=30) as client:
            session = await _session(client, url)
            message = call_message("flood", {"tag": "f", "count": count, "pause": 0.0005}, 3)
            async with client.stream(
                "POST", url, json=message, headers=post_headers("2025-11-25", session)
            ) as response:
                seen = 0
                async for line in response.aiter_lines():
                    seen += line.startswith("data: {")
                    if seen == 5:
                        break
            return session

    with serve(app) as served:
        baseline = served.tasks() + SWEEPER  # the session stays open
        session = asyncio.run(run(served.url))
        _wait_for(lambda: probe.finished == ["f"])
        streams = list(app.sessions[session].streams.values())
        assert len(streams) == 1
        _wait_for(lambda: streams[0].finished)  # the answer, written after the handler returns
        kept = streams[0].events
        assert len(kept) == limit, "only the last replay_limit events are kept"
        assert sum(len(chunk) for _, chunk in kept) < limit * 1200
        assert json.loads(kept[-1][1].decode().split("data: ", 1)[1])["id"] == 3, "the answer is kept for resumption"
        assert served.settle(baseline) == baseline


def test_stateless_client_leaving_mid_stream_cancels_the_handler(packages: dict[str, ModuleType]) -> None:
    probe = Probe()
    app = tool_app(packages, "2026-07-28", probe)

    async def run(url: str) -> None:
        message = stateless_message(
            "tools/call", {"name": "flood", "arguments": {"tag": "s", "count": 100000, "pause": 0.001}}, "2026-07-28"
        )
        headers = post_headers("2026-07-28", mcp_method="tools/call", mcp_name="flood")
        async with httpx.AsyncClient(timeout=30) as client:
            async with client.stream("POST", url, json=message, headers=headers) as response:
                assert response.headers["content-type"] == "text/event-stream"
                seen = 0
                async for line in response.aiter_lines():
                    seen += line.startswith("data: {")
                    if seen == 3:
                        break

    with serve(app) as served:
        baseline = served.tasks()
        asyncio.run(run(served.url))
        _wait_for(lambda: probe.cancelled == ["s"])
        assert served.settle(baseline) == baseline
    assert probe.finished == []


def test_session_limit_and_idle_sessions_expire(packages: dict[str, ModuleType]) -> None:
    """Idle sessions end on their own (no other client needs to come along), and the limit is kept: a
    session past it takes the place of the one idle longest. Timings are generous: the test waits for
    what it expects instead of sleeping a fixed time."""
    app = tool_app(packages, "2025-11-25", Probe(), max_sessions=3, session_timeout=1.0)
    with serve(app) as served, httpx.Client() as client:
        opened = [
            client.post(served.url, json=initialize_message("2025-11-25"), headers=post_headers()) for _ in range(4)
        ]
        assert [r.status_code for r in opened] == [200, 200, 200, 200]
        assert list(app.sessions) == [r.headers["mcp-session-id"] for r in opened[1:]]
        deadline = time.monotonic() + 20
        while app.sessions and time.monotonic() < deadline:
            time.sleep(0.1)
        assert app.sessions == {}, "idle sessions expire without another client opening one"
        fresh = client.post(served.url, json=initialize_message("2025-11-25"), headers=post_headers())
        stale = client.post(
            served.url,
            json=call_message("echo", {}, 2),
            headers=post_headers("2025-11-25", opened[0].headers["mcp-session-id"]),
        )
        assert fresh.headers["mcp-session-id"] in app.sessions
    assert fresh.status_code == 200
    assert stale.status_code == 404
    assert app.sessions == {}, "server shutdown (ASGI lifespan) ends every session"


def test_resumed_stream_replays_only_after_the_given_event(packages: dict[str, ModuleType]) -> None:
    app = tool_app(packages, "2025-11-25", Probe(), replay_limit=1000)

    async def run(url: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        async with httpx.AsyncClient(timeout=30) as client:
            session = await _session(client, url)
            message = call_message("flood", {"tag": "r", "count": 20}, 4)
            full = await client.post(url, json=message, headers=post_headers("2025-11-25", session))
            events = sse_events(full.text)
            middle = events[10]["id"]
            again = await client.get(
                url, headers={"accept": "text/event-stream", "mcp-session-id": session, "last-event-id": middle}
            )
            return events, sse_events(again.text)

    with serve(app) as served:
        events, replayed = asyncio.run(run(served.url))
    assert [e["id"] for e in replayed] == [e["id"] for e in events[11:]]
    assert replayed[-1]["data"]["id"] == 4


@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
def test_quiet_streams_get_keepalive_comments(packages: dict[str, ModuleType], revision: str) -> None:
    app = tool_app(packages, revision, Probe(), keepalive=0.05)

    async def run(url: str) -> str:
        async with httpx.AsyncClient(timeout=30) as client:
            if revision == "2026-07-28":
                message = stateless_message(
                    "tools/call", {"name": "flood", "arguments": {"count": 3, "pause": 0.3}}, revision
                )
                headers = post_headers(revision, mcp_method="tools/call", mcp_name="flood")
            else:
                message = call_message("flood", {"count": 3, "pause": 0.3}, 2)
                headers = post_headers(revision, await _session(client, url))
            response = await client.post(url, json=message, headers=headers)
            return response.text

    with serve(app) as served:
        baseline = served.tasks() + (SWEEPER if revision == "2025-11-25" else 0)  # a session stays open
        text = asyncio.run(run(served.url))
        assert served.settle(baseline) == baseline, "the keep-alive ends with its stream"
    comments = [block for block in text.split("\n\n") if block.startswith(":")]
    assert len(comments) >= 6, text
    events = sse_events(text)
    assert [e["data"].get("method") for e in events if e["data"]] == ["notifications/message"] * 3 + [None]
