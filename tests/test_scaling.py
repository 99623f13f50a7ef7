"""The example of docs/scaling.md, taken from the page as it is written, run as two uvicorn workers
with a real redis-server: a 2026-07-28 listen stream and a 2025-11-25 session that subscribed, both on
worker A, hear every update a `touch` through worker B makes, in order, and nothing else; killing B
and starting it again loses nothing for them (B's own session is gone: 404, and a new one serves)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import httpx

from docpages import page, run_by
from httpserve import ACCEPT, KEEP_ALIVE, wire_check
from redis_server import RedisServer, free_port, redis_server, wait_for_port

UPDATES = 20
"""Touches before B is killed, and again after it is back."""
WATCHED = "file:///docs/"
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def documented_example() -> str:
    """The Python block of docs/scaling.md that this test runs."""
    (code,) = run_by("tests/test_scaling.py", page("scaling.md"))
    return code


class Worker:
    """One uvicorn process serving the example on a port of its own, its output in a log file."""

    def __init__(self, app_dir: Path, name: str, redis: RedisServer, package_root: Path) -> None:
        self.app_dir = app_dir
        self.log = app_dir / f"{name}.log"
        self.env = {**os.environ, "REDIS_URL": redis.url, "PYTHONPATH": str(package_root)}
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the worker and wait until it accepts connections."""
        argv = [sys.executable, "-m", "uvicorn", "scaled:app", "--host", "127.0.0.1", "--port", str(self.port)]
        argv += ["--app-dir", str(self.app_dir), "--log-level", "warning", "--timeout-keep-alive", str(KEEP_ALIVE)]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(argv, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        wait_for_port(self.port, self.process, f"worker {self.log.stem}")

    def kill(self) -> None:
        """SIGKILL: the worker dies without any shutdown."""
        assert self.process is not None
        self.process.kill()
        self.process.wait(30)

    def stop(self) -> None:
        """Stop the worker (SIGTERM, then SIGKILL after a grace period)."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.kill()


def stateless_headers(method: str, name: str | None = None) -> dict[str, str]:
    headers = {"accept": ACCEPT, "content-type": "application/json", "mcp-protocol-version": "2026-07-28"}
    headers["mcp-method"] = method
    if name is not None:
        headers["mcp-name"] = name
    return headers


def session_headers(session: str) -> dict[str, str]:
    return {"accept": ACCEPT, "content-type": "application/json", "mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}


async def data_lines(response: httpx.Response) -> Any:
    """The JSON messages of an SSE response, as they come."""
    async for line in response.aiter_lines():
        if line.startswith("data: {"):
            yield json.loads(line[len("data: ") :])


async def open_session(client: httpx.AsyncClient, url: str) -> str:
    """A 2025-11-25 session on the worker at `url`; its id."""
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    answer = await client.post(url, json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}, headers={"accept": ACCEPT})
    assert answer.status_code == 200, answer.text
    assert answer.json()["result"]["capabilities"]["resources"] == {"subscribe": True}
    session = answer.headers["mcp-session-id"]
    done = await client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session_headers(session))
    assert done.status_code == 202
    return session


async def listen(client: httpx.AsyncClient, url: str, heard: list[Any], ready: asyncio.Event, check: Callable[[Any], None]) -> None:
    """A 2026-07-28 client's listen stream on WATCHED: its updates into `heard`, `ready` once acknowledged."""
    params = {"_meta": META, "notifications": {"resourceSubscriptions": [WATCHED]}}
    message = {"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen", "params": params}
    async with client.stream("POST", url, json=message, headers=stateless_headers("subscriptions/listen")) as response:
        assert response.status_code == 200
        async for event in data_lines(response):
            check(event)
            assert event["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "listen-1"
            if event["method"] == "notifications/subscriptions/acknowledged":
                assert event["params"]["notifications"] == {"resourceSubscriptions": [WATCHED]}
                ready.set()
            else:
                heard.append(event)


async def subscribed_session(client: httpx.AsyncClient, url: str, heard: list[Any], ready: asyncio.Event, check: Callable[[Any], None]) -> None:
    """A 2025-11-25 session subscribed to WATCHED, its standalone stream's updates into `heard`."""
    session = await open_session(client, url)
    subscribe = {"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe", "params": {"uri": WATCHED}}
    answer = await client.post(url, json=subscribe, headers=session_headers(session))
    assert answer.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}
    ready.set()
    async with client.stream("GET", url, headers={"accept": "text/event-stream", "mcp-session-id": session}) as response:
        assert response.status_code == 200
        async for event in data_lines(response):
            check(event)
            heard.append(event)


async def touch(client: httpx.AsyncClient, url: str, uri: str, session: str | None, request_id: int) -> httpx.Response:
    """Call `touch` on the worker at `url`: in `session` (2025-11-25), else as a stateless request."""
    params: dict[str, Any] = {"name": "touch", "arguments": {"uri": uri}}
    if session is None:
        params["_meta"] = META
        headers = stateless_headers("tools/call", "touch")
    else:
        headers = session_headers(session)
    return await client.post(url, json={"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}, headers=headers)


async def touched(client: httpx.AsyncClient, url: str, uri: str, session: str | None, request_id: int) -> None:
    answer = await touch(client, url, uri, session, request_id)
    assert answer.status_code == 200, answer.text
    assert answer.json()["result"]["content"] == [{"type": "text", "text": f"touched {uri}"}]


async def until(condition: Callable[[], bool], state: Callable[[], str], timeout: float = 60) -> None:
    """Wait for `condition` (polling), failing with `state()` after `timeout` seconds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, f"timed out: {state()}"
        await asyncio.sleep(0.05)


def test_listeners_on_one_worker_hear_every_touch_through_another_across_its_restart(
    generated_root: Path, schema_dir: Path, tmp_path: Path
) -> None:
    (tmp_path / "scaled.py").write_text(documented_example(), "utf-8")
    check_2025, check_2026 = wire_check(schema_dir, "2025-11-25"), wire_check(schema_dir, "2026-07-28")
    with redis_server() as redis:
        a, b = (Worker(tmp_path, name, redis, generated_root) for name in ("a", "b"))
        try:
            a.start()
            b.start()
            asyncio.run(asyncio.wait_for(scenario(a, b, check_2025, check_2026), 180))
        finally:
            a.stop()
            b.stop()
    for log in (a.log, b.log):
        text = log.read_text(errors="replace")
        assert "Traceback" not in text and "ERROR" not in text, text[-3000:]


async def scenario(a: Worker, b: Worker, check_2025: Callable[[Any], None], check_2026: Callable[[Any], None]) -> None:
    on_stream: list[Any] = []
    on_session: list[Any] = []
    streaming, subscribed = asyncio.Event(), asyncio.Event()
    async with httpx.AsyncClient(timeout=httpx.Timeout(60, read=None)) as client:
        listeners = [
            asyncio.ensure_future(listen(client, a.url, on_stream, streaming, check_2026)),
            asyncio.ensure_future(subscribed_session(client, a.url, on_session, subscribed, check_2025)),
        ]
        await asyncio.wait_for(asyncio.gather(streaming.wait(), subscribed.wait()), 60)
        uris = [f"{WATCHED}{n}" for n in range(2 * UPDATES)]
        session_on_b = await open_session(client, b.url)
        for n, uri in enumerate(uris[:UPDATES]):
            await touched(client, b.url, uri, session_on_b if n % 2 else None, n + 10)
        await touch(client, b.url, "file:///elsewhere", None, 99)  # watched by nobody

        b.kill()
        b.start()
        gone = await touch(client, b.url, "file:///lost", session_on_b, 98)
        assert gone.status_code == 404  # the session died with the worker
        session_on_b = await open_session(client, b.url)
        for n, uri in enumerate(uris[UPDATES:], UPDATES):
            await touched(client, b.url, uri, session_on_b if n % 2 else None, n + 10)

        await until(
            lambda: len(on_stream) >= len(uris) and len(on_session) >= len(uris),
            lambda: f"{len(on_stream)} updates on the listen stream, {len(on_session)} in the session, of {len(uris)}",
        )
        await asyncio.sleep(0.5)  # anything more would arrive now
        assert not any(task.done() for task in listeners)  # the streams on A never broke
        for task in listeners:
            task.cancel()
        await asyncio.gather(*listeners, return_exceptions=True)
    for heard in (on_stream, on_session):
        assert [event["method"] for event in heard] == ["notifications/resources/updated"] * len(uris)
        assert [event["params"]["uri"] for event in heard] == uris
