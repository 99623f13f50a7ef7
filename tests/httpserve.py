"""Test support for the HTTP transport: serve an ASGI app with uvicorn on loopback, read SSE, check the wire."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Coroutine, Iterator, TypeVar

from jsonschema.validators import validator_for

T = TypeVar("T")
ACCEPT = "application/json, text/event-stream"
KEEP_ALIVE = 60
"""Seconds uvicorn keeps an idle connection open in tests: longer than any test client keeps one (httpx:
5 s), so a client never reuses a connection the server is closing at that moment. With uvicorn's default
of 5 s, a loaded machine made that race reset a request about once in twenty load-test runs."""


@dataclass
class Served:
    """An app running under uvicorn in a thread of its own, with its own event loop."""

    url: str
    loop: asyncio.AbstractEventLoop

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 10) -> T:
        """Run a coroutine in the server's loop (to look at its state) and return its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def tasks(self) -> int:
        """How many tasks the server's loop has besides the one asking (uvicorn's own included)."""

        async def count() -> int:
            return len(asyncio.all_tasks()) - 1

        return self.run(count())

    def settle(self, baseline: int, timeout: float = 5) -> int:
        """Wait until the server's loop is back to `baseline` tasks (or the timeout); the count then."""
        deadline = time.monotonic() + timeout
        while (count := self.tasks()) > baseline and time.monotonic() < deadline:
            time.sleep(0.05)
        return count


@contextlib.contextmanager
def serve(app: Any, host: str = "127.0.0.1") -> Iterator[Served]:
    """Serve `app` with uvicorn on `host` and a free port until the block ends."""
    import uvicorn

    config = uvicorn.Config(
        app, host=host, port=0, log_level="warning", lifespan="on", timeout_keep_alive=KEEP_ALIVE
    )
    server = uvicorn.Server(config)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(server.serve(),), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield Served(f"http://{host}:{port}/mcp", loop)
    finally:
        server.should_exit = True
        thread.join(10)
        loop.close()


def sse_events(text: str) -> list[dict[str, Any]]:
    """The events of an SSE body: dicts with `id`, `retry` and the JSON `data` (None when empty)."""
    events: list[dict[str, Any]] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        event: dict[str, Any] = {}
        data: list[str] = []
        for line in block.split("\n"):
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "data":
                data.append(value)
            elif field in ("id", "retry"):
                event[field] = value
        if data or event:
            joined = "\n".join(data)
            event["data"] = json.loads(joined) if joined.strip() else None
            events.append(event)
    return events


def wire_check(schema_dir: Path, revision: str) -> Callable[[Any], None]:
    """A function asserting that a message is a valid `JSONRPCMessage` of `revision`'s upstream schema."""
    schema = json.loads((schema_dir / revision / "schema.json").read_text("utf-8"))
    defs = "$defs" if "$defs" in schema else "definitions"
    root = dict(schema)
    root.update({"$ref": f"#/{defs}/JSONRPCMessage"})
    validator = validator_for(root)(root)

    def check(message: Any) -> None:
        errors = sorted(validator.iter_errors(message), key=str)
        assert not errors, f"not a valid {revision} JSONRPCMessage: {message}\n{errors[0].message}"

    return check
