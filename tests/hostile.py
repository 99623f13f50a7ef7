"""Hostile peers for the authorization tests: an MCP server that challenges and publishes what it is told
(served with uvicorn on loopback), a transport that reaches a loopback server under a public host name
(as a line of /etc/hosts would), and a recorder standing for every destination that must never be
contacted (in process, or on a real loopback socket as a canary)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import httpx

METADATA_PATH = "/.well-known/oauth-protected-resource/mcp"


@dataclass(frozen=True)
class Seen:
    """A request a hostile peer received."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes


async def _read(receive: Any) -> bytes:
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            return body


def _seen(scope: dict[str, Any], body: bytes) -> Seen:
    headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
    return Seen(scope["method"], scope["path"], scope.get("query_string", b"").decode(), headers, body)


async def _answer(send: Any, status: int, body: bytes, headers: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    await send({"type": "http.response.start", "status": status, "headers": list(headers)})
    await send({"type": "http.response.body", "body": body})


class Resolved(httpx.AsyncHTTPTransport):  # type: ignore[misc]
    """A real transport to the server listening at `local` (`http://127.0.0.1:PORT`), whatever host the
    URL names (its Host header kept): a public name resolved for this client alone."""

    def __init__(self, local: str) -> None:
        super().__init__()
        self.local = httpx.URL(local)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.url = request.url.copy_with(scheme="http", host=self.local.host, port=self.local.port)
        return await super().handle_async_request(request)


@dataclass
class Recorder:
    """An ASGI app that records every request and answers 404: a destination never to be contacted."""

    seen: list[Seen] = field(default_factory=list)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        self.seen.append(_seen(scope, await _read(receive)))
        await _answer(send, 404, b"")


@dataclass
class HostileMcp:
    """An MCP endpoint at `/mcp` (any query) that wants an access token: 401 with a challenge naming
    `hint` (else its own path-aware metadata URL, with the request's query), unless the token presented
    is accepted (`accepted` None: any token). Its protected-resource metadata names
    `authorization_servers` for the resource `/mcp` plus the query it was asked with, padded with
    `padding` bytes, sent a byte every `drip` seconds when set."""

    authorization_servers: list[str]
    origin: str | None = None
    """The origin it is known by (None: the scheme and Host of each request)."""
    hint: str | None = None
    accepted: set[str] | None = None
    padding: int = 0
    drip: float | None = None
    seen: list[Seen] = field(default_factory=list)
    sent: int = 0
    """Bytes of metadata sent so far."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        seen = _seen(scope, await _read(receive))
        self.seen.append(seen)
        base = self.origin or f"{scope.get('scheme', 'http')}://{seen.headers.get('host', '')}"
        if seen.path == METADATA_PATH:
            gone = asyncio.ensure_future(receive())  # the next message is the client's disconnect
            try:
                await self._metadata(send, base, seen.query, gone)
            finally:
                gone.cancel()
            return
        if seen.path != "/mcp":
            await _answer(send, 404, b"")
            return
        scheme, _, token = seen.headers.get("authorization", "").partition(" ")
        if token and (self.accepted is None or token in self.accepted):
            await _answer(send, 200, b'{"jsonrpc":"2.0","id":1,"result":{}}', ((b"content-type", b"application/json"),))
            return
        query = f"?{seen.query}" if seen.query else ""
        hint = self.hint or f"{base}{METADATA_PATH}{query}"
        challenge = f'Bearer resource_metadata="{hint}"'.encode()
        await _answer(send, 401, b"", ((b"www-authenticate", challenge),))

    async def _metadata(self, send: Any, base: str, query: str, gone: asyncio.Future[Any]) -> None:
        resource = f"{base}/mcp" + (f"?{query}" if query else "")
        document = {"resource": resource, "authorization_servers": self.authorization_servers}
        head = json.dumps(document)[:-1].encode() + b', "padding": "'
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        for chunk in self._chunks(head, b'"}'):
            if gone.done():
                return
            if self.drip is not None:
                await asyncio.sleep(self.drip)
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
            self.sent += len(chunk)
        await send({"type": "http.response.body", "body": b""})

    def _chunks(self, head: bytes, tail: bytes) -> Any:
        if self.drip is not None:
            yield from (bytes([b]) for b in head + b"x" * self.padding + tail)
            return
        yield head
        left = self.padding
        while left > 0:
            yield b"x" * min(left, 1 << 20)
            left -= 1 << 20
        yield tail


