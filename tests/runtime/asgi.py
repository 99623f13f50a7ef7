"""Drive an ASGI app in process: one HTTP exchange, its status, headers and body (SSE included)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

ACCEPT = "application/json, text/event-stream"


@dataclass
class Response:
    """What the app sent back."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body as JSON: the one JSON value, or the data of each SSE event (list)."""
        if self.headers.get("content-type") == "text/event-stream":
            return [
                json.loads(line[len("data: ") :])
                for line in self.body.decode("utf-8").split("\n")
                if line.startswith("data: ") and line.strip() != "data:"
            ]
        return json.loads(self.body) if self.body else None


async def exchange(
    app: Any,
    method: str,
    headers: dict[str, str],
    body: bytes = b"",
    *,
    path: str = "/mcp",
    server: tuple[str, int] = ("127.0.0.1", 8000),
    timeout: float = 10,
) -> Response:
    """One request to `app`; the client stays connected until the response ends."""
    sent: list[dict[str, Any]] = []
    done = asyncio.Event()
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict[str, Any]:
        if pending:
            return pending.pop(0)
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            done.set()

    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "root_path": "",
        "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()],
        "server": server,
    }
    await asyncio.wait_for(app(scope, receive, send), timeout)
    start = next(m for m in sent if m["type"] == "http.response.start")
    return Response(
        start["status"],
        {k.decode("latin-1"): v.decode("latin-1") for k, v in start.get("headers", [])},
        b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"),
    )


def post_headers(
    session: str | None = None, version: str | None = None, **extra: str
) -> dict[str, str]:
    """The headers of a POST carrying JSON-RPC (and the session and version when given)."""
    headers = {"host": "127.0.0.1:8000", "content-type": "application/json", "accept": ACCEPT}
    if session is not None:
        headers["mcp-session-id"] = session
    if version is not None:
        headers["mcp-protocol-version"] = version
    return {**headers, **extra}
