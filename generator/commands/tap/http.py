"""The Streamable HTTP tap: a reverse proxy (an ASGI app under uvicorn, httpx to the upstream) that
relays every request and answer as they come and hands copies to the judge.

Headers pass through both ways as the bytes the peer sent (hop-by-hop ones aside, and `Host`, which
names the upstream); the tap adds none of its own and keeps no cookie. Bodies are relayed as raw bytes,
an SSE answer event by event as the upstream sends it. Bounded like the generated servers: request
bodies up to MAX_BODY bytes (413 beyond), at most MAX_EXCHANGES requests at once (503 beyond). A client
that leaves an answer unread for --timeout seconds loses its connection; an upstream that cannot be
reached gets the client a 502; each is one line on stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.cookiejar
import itertools
import json
import signal
import socket
import sys
import threading
from typing import TYPE_CHECKING, Any, Awaitable, Callable, MutableMapping
from urllib.parse import urlsplit

from . import redact
from .channel import C2S, HTTP, S2C, Feed, http_payload
from .config import TapConfig, TapError, shown_url
from .framing import MAX_MESSAGE, Budget
from .report import PREFIX
from .transport import SSE, media

if TYPE_CHECKING:
    import httpx

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

MAX_BODY = 4 * 1024 * 1024
"""The largest request body relayed (the generated servers' default `max_body`)."""
MAX_EXCHANGES = 256
"""Requests relayed at once."""
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host"})
"""Headers that belong to one connection, not to the request (and `Host`, which names the upstream)."""
MISSING = "mcpgen tap needs httpx and uvicorn for Streamable HTTP: pip install 'mcpgen[tap]'"


class _Stalled(Exception):
    """The client left an answer unread for longer than --timeout."""


def _error(status: int, message: str) -> tuple[int, bytes]:
    body = {"jsonrpc": "2.0", "error": {"code": -32603 if status >= 500 else -32600, "message": message}}
    return status, json.dumps(body).encode()


class Proxy:
    """The ASGI app: relays each request to the upstream and its answer back, feeding the judge."""

    def __init__(self, config: TapConfig, feed: Feed, client: httpx.AsyncClient) -> None:
        self.config = config
        self.feed = feed
        self.client = client
        parts = urlsplit(config.upstream or "")
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.path = config.path
        self._ids = itertools.count(1)
        self._slots = asyncio.Semaphore(MAX_EXCHANGES)
        self.stderr = sys.stderr

    def say(self, text: str) -> None:
        """One line on stderr about the relay itself (a peer that failed)."""
        try:
            self.stderr.write(PREFIX + text + "\n")
            self.stderr.flush()
        except (OSError, ValueError):
            pass

    def _event(self, event: dict[str, Any], body: bytes = b"", kind: int = C2S) -> None:
        self.feed.put(HTTP, http_payload(event, body), kind)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await self.client.aclose()
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] != "http":
            return
        if self._slots.locked():
            await _respond(send, *_error(503, "mcpgen tap: too many requests at once"), ((b"retry-after", b"1"),))
            return
        async with self._slots:
            with contextlib.suppress(_Gone):
                await self._exchange(scope, receive, send)

    async def _exchange(self, scope: Scope, receive: Receive, send: Send) -> None:
        xid = next(self._ids)
        judged = scope["path"] == self.path
        body = await _read_body(receive)
        if body is None:
            await _respond(send, *_error(413, f"Request body larger than {MAX_BODY} bytes"))
            return
        if judged:
            self._event({"e": "req", "x": xid, "m": scope["method"], "h": _judged_headers(scope["headers"])}, body)
        target = self.origin + (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
        if scope.get("query_string"):
            target += "?" + scope["query_string"].decode("latin-1")
        outgoing = [(k, v) for k, v in scope["headers"] if k.lower().decode("latin-1") not in HOP_BY_HOP]
        import httpx

        # Not client.build_request: that adds the client's default headers (Accept, User-Agent, ...) and cookies.
        request = httpx.Request(scope["method"], target, headers=outgoing, content=body)
        try:
            answer = await self.client.send(request, stream=True)
        except httpx.HTTPError as exc:
            self.say(f"error: the upstream {shown_url(self.config.upstream or '')} failed {scope['method']} {scope['path']}: {type(exc).__name__}: {_reason(exc)}")
            if judged:
                self._event({"e": "fail", "x": xid}, kind=S2C)
            await _respond(send, *_error(502, f"mcpgen tap: the upstream cannot be reached ({type(exc).__name__})"))
            return
        try:
            if judged:
                self._event({"e": "res", "x": xid, "s": answer.status_code, "h": _judged_headers(answer.headers.raw)}, kind=S2C)
            await self._relay(answer, send, receive, xid if judged else None, scope)
        finally:
            await answer.aclose()
            if judged:
                self._event({"e": "end", "x": xid}, kind=S2C)

    async def _relay(self, answer: httpx.Response, send: Send, receive: Receive, xid: int | None, scope: Scope) -> None:
        """Send the answer's head, then its body as the upstream gives it, until it ends or the client leaves."""
        import httpx

        raw = [(k.lower(), v) for k, v in answer.headers.raw if k.lower().decode("latin-1") not in HOP_BY_HOP]
        await send({"type": "http.response.start", "status": answer.status_code, "headers": raw})
        left = asyncio.ensure_future(_disconnected(receive))
        relay = asyncio.ensure_future(self._body(answer, send, xid))
        try:
            await asyncio.wait({left, relay}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            left.cancel()
            if not relay.done():
                relay.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await relay
                if xid is not None:  # the judge says so when a request of it is still unanswered
                    self._event({"e": "left", "x": xid}, kind=S2C)
                return
        try:
            relay.result()
        except _Stalled:
            self.say(f"error: the client has not read the answer to {scope['method']} {scope['path']} for {self.config.timeout:g} s: closed the connection")
            raise
        except httpx.HTTPError as exc:
            self.say(f"error: the upstream's answer to {scope['method']} {scope['path']} broke off: {type(exc).__name__}: {_reason(exc)}")
            raise _Stalled from None

    async def _body(self, answer: httpx.Response, send: Send, xid: int | None) -> None:
        timeout = self.config.timeout or None
        budget = Budget(cr=True) if media(answer.headers.get("content-type"))[:1] == [SSE] else None
        handed = 0  # bytes of a body that is not an event stream handed to the judge
        async for chunk in answer.aiter_raw():
            if xid is not None and budget is not None:
                for part in budget.take(chunk):
                    self._event({"e": "skip", "x": xid, "n": part} if isinstance(part, int) else {"e": "chunk", "x": xid}, b"" if isinstance(part, int) else part, S2C)
            elif xid is not None:
                kept = chunk[: max(0, MAX_MESSAGE + 1 - handed)]
                handed += len(chunk)
                self._event({"e": "chunk", "x": xid, "n": len(chunk)}, kept, S2C)
            try:
                await asyncio.wait_for(send({"type": "http.response.body", "body": chunk, "more_body": True}), timeout)
            except asyncio.TimeoutError:
                raise _Stalled from None
        await send({"type": "http.response.body", "body": b"", "more_body": False})


def _judged_headers(raw: list[tuple[bytes, bytes]]) -> dict[str, str]:
    """Raw header pairs as the judge gets them: text by lower-case name, credentials replaced."""
    return redact.headers([(k.decode("latin-1"), v.decode("latin-1")) for k, v in raw])


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:200] or "no reason given"


class _Gone(Exception):
    """The client left before its request's body was whole."""


async def _read_body(receive: Receive) -> bytes | None:
    """The request body, None when it is larger than MAX_BODY; _Gone when the client left first."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _Gone
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _respond(send: Send, status: int, body: bytes, headers: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    head = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers]
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})


def _listen(host: str, port: int) -> socket.socket:
    """The listening socket (bound here so that a port in use is one clear line)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise TapError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    sock.setblocking(False)
    return sock


def upstream_client(config: TapConfig) -> httpx.AsyncClient:
    """The client the tap relays through: it keeps no cookie, follows no redirect, takes no proxy from the environment."""
    import httpx

    timeout = httpx.Timeout(connect=config.timeout or None, read=None, write=config.timeout or None, pool=config.timeout or None)
    limits = httpx.Limits(max_connections=MAX_EXCHANGES, max_keepalive_connections=32)
    no_cookies = http.cookiejar.CookieJar(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))
    return httpx.AsyncClient(timeout=timeout, limits=limits, follow_redirects=False, trust_env=False, cookies=no_cookies)


def run_http(config: TapConfig) -> int:
    """Serve the proxy on --listen until SIGINT or SIGTERM; 0, or 130/143 after those signals."""
    try:
        import httpx
        import uvicorn
    except ImportError:
        raise TapError(MISSING) from None
    sock = _listen(*config.address)
    host, port = sock.getsockname()[:2]
    feed = Feed(config)
    app = Proxy(config, feed, upstream_client(config))
    server = uvicorn.Server(uvicorn.Config(app, log_level="critical", access_log=False, lifespan="on", timeout_graceful_shutdown=2, server_header=False, date_header=False))
    stopped: list[int] = []

    def stop(number: int, frame: object) -> None:
        stopped.append(number)
        server.force_exit = server.should_exit
        server.should_exit = True

    # uvicorn runs off the main thread, so it takes no signals: the main thread stops it.
    thread = threading.Thread(target=asyncio.run, args=(server.serve(sockets=[sock]),), name="mcpgen-tap-http", daemon=True)
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    shown = f"[{host}]" if ":" in host else host
    print(f"{PREFIX}listening on http://{shown}:{port}{config.path} (upstream {shown_url(config.upstream or '')})", file=sys.stderr, flush=True)
    try:
        thread.start()
        while thread.is_alive():
            thread.join(0.2)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        sock.close()
    feed.close()
    return 128 + stopped[0] if stopped else 0
