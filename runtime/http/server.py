"""The Streamable HTTP server: an ASGI 3 application written with the standard library and pydantic alone.

Each request is served in the era of its protocol version: the session era (an `initialize` handshake,
`Mcp-Session-Id`, a standalone GET stream, SSE streams resumable with `Last-Event-ID`) or the stateless
era (no session, a fresh server per request, the version, method and name mirrored in headers that must
match the body).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import ipaddress
import itertools
import secrets
import signal
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..auth.resource import ACCESS, AccessToken, Refused, ResourceServer
from ..jsonrpc import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    ProtocolError,
    encode,
    load,
    settle,
    valid_id,
)
from ..log import logger
from ..peer import CONTEXT, INBOUND, Inbound, Peer
from ..revisions import Revisions, newest_first
from .common import (
    ASSUMED_VERSION,
    Eras,
    at,
    decode_header,
    eras,
    error_body,
    header_params,
    is_request,
    is_response,
    mapping,
    same,
)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


def _media_types(value: str) -> list[str]:
    return [part.split(";", 1)[0].strip().lower() for part in value.split(",") if part.strip()]


def _accepts(accept: str, *media: str) -> bool:
    """True when an Accept header admits every one of `media` (wildcards count)."""
    ranges = _media_types(accept)
    return all(any(r in (m, "*/*", m.split("/", 1)[0] + "/*") for r in ranges) for m in media)


def _host_name(host: str) -> str | None:
    """The host of a Host header or URL authority, lower case, without its port ([::1] keeps its
    brackets); None when it is malformed (`[::1]evil.com`, an empty name, a port that is not a number).
    """
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        rest = host[end + 1 :] if end > 0 else "?"
        if rest and not (rest.startswith(":") and rest[1:].isascii() and rest[1:].isdigit()):
            return None
        return host[: end + 1]
    name, colon, port = host.rpartition(":")
    if colon and not (port.isascii() and port.isdigit()):
        return None
    name = name if colon else host
    return name if name and all(c.isalnum() or c in "-._" for c in name) else None


def _unrebindable(name: str) -> bool:
    """True for a host DNS rebinding cannot forge: an IP literal, or localhost (a browser's Host header
    names the DNS name it resolved, and an attacker's page can only reach this server through one).
    """
    return name == "localhost" or _ip_literal(name)


@lru_cache(maxsize=256)
def _ip_literal(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


def _matches(value: str, allowed: Iterable[str], name: str) -> bool:
    """True when `value` is allowed: "*" admits all, an entry without port admits the host on any port."""
    value = value.strip().lower()
    return any(a == "*" or a.lower() == value or a.lower() == name for a in allowed)


class _Reject(Exception):
    """An HTTP error answer: status, JSON-RPC error body (or None) and extra headers."""

    def __init__(
        self, status: int, body: dict[str, Any] | None, headers: Iterable[tuple[str, str]] = ()
    ) -> None:
        super().__init__(status)
        self.status = status
        self.body = body
        self.headers = list(headers)


class _Request:
    """The parts of an ASGI HTTP scope the transport reads."""

    def __init__(self, scope: Scope) -> None:
        self.method: str = scope["method"]
        headers: dict[str, str] = {}
        for raw_name, raw_value in scope.get("headers", ()):
            name = raw_name.decode("latin-1").lower()
            # Optional whitespace is not part of a value (RFC 9110).
            value = raw_value.decode("latin-1").strip(" \t")
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        self.headers = headers
        server = scope.get("server")
        host = headers.get("host") or (f"{server[0]}:{server[1]}" if server else "localhost")
        self.origin = f"{scope.get('scheme', 'http')}://{host}"
        """Where the request came to: scheme and authority (the resource server's URLs start so)."""

    def get(self, name: str) -> str | None:
        """A header's value (names are case-insensitive)."""
        return self.headers.get(name)


async def _respond(
    send: Send,
    status: int,
    body: bytes = b"",
    content_type: str | None = None,
    headers: Iterable[tuple[str, str]] = (),
) -> None:
    raw = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers]
    raw.append((b"content-length", str(len(body)).encode("ascii")))
    if content_type is not None:
        raw.append((b"content-type", content_type.encode("latin-1")))
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


async def _respond_json(
    send: Send, status: int, body: Any, headers: Iterable[tuple[str, str]] = ()
) -> None:
    await _respond(send, status, _encoded(body), "application/json", headers)


def _encoded(message: Any) -> bytes:
    """A message as JSON; an answer JSON cannot carry becomes an internal error for its request."""
    try:
        return encode(message)
    except ValueError as exc:
        logger.error("an answer could not be written as JSON (%s): answered -32603 instead", exc)
        request_id = message.get("id") if isinstance(message, Mapping) else None
        return encode(
            error_body(INTERNAL_ERROR, "Internal error: the answer is not valid JSON", request_id)
        )


async def _start_sse(send: Send, session_id: str | None) -> Send:
    """Begin a 200 text/event-stream answer (unbuffered by proxies); the `send` that writes its events."""
    headers = [
        (b"content-type", b"text/event-stream"),
        (b"cache-control", b"no-cache"),
        (b"x-accel-buffering", b"no"),
    ]
    if session_id is not None:
        headers.append((b"mcp-session-id", session_id.encode("ascii")))
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    return send


async def _read_body(receive: Receive, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _Reject(400, None)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise _Reject(
                413, error_body(INVALID_REQUEST, f"Request body larger than {limit} bytes")
            )
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


@dataclass(frozen=True)
class StreamOptions:
    """How SSE streams behave: the `retry` they announce, the events kept for resumption, keep-alive comments."""

    retry_ms: int = 1000
    replay_limit: int = 256
    keepalive: float | None = 15.0
    """Seconds between `:` comment lines on an SSE connection with nothing to say (None: never)."""
    max_streams: int = 64
    """Streams a session keeps for resumption once they went SSE (the oldest are forgotten first)."""
    replay_bytes: int = 1024 * 1024
    """Bytes of events a session keeps for resumption, over all its streams (the oldest go first)."""


class _Stream:
    """One SSE stream: the answer to a POST or the standalone GET stream of a session.

    A Channel for the messages a handler sends while it runs. Events are numbered and the last
    `replay_limit` kept, so a client that lost the connection resumes with `Last-Event-ID`.
    """

    def __init__(self, session: _Session | None, key: str, options: StreamOptions) -> None:
        self.session = session
        self.key = key
        self.options = options
        self.seq = 0
        self.sent = 0
        """The last event written to a connection (a new standalone GET starts after it)."""
        self.events: collections.deque[tuple[int, bytes]] = collections.deque()
        self.kept = 0
        """Bytes of `events`."""
        self.lock = asyncio.Lock()
        self.send: Send | None = None
        self._beat: asyncio.Future[None] | None = None
        self.start: Callable[[], Awaitable[Send]] | None = None
        """Begins the SSE answer of the POST that owns this stream; None once begun or when it answered JSON."""
        self.finished = False
        self.ended = asyncio.Event()
        """Set when no connection writes the stream any more (finished, or the connection was let go)."""

    def _prime(self) -> bytes:
        return f"id: {self.key}-0\nretry: {self.options.retry_ms}\ndata: \n\n".encode("ascii")

    async def _begin(self) -> None:
        if self.start is not None:
            begin, self.start = self.start, None
            self.send = await begin()
            await self._write(self._prime())
            self._pulse()

    def _pulse(self) -> None:
        """Start the keep-alive comments of the connection just attached."""
        if self.options.keepalive and self._beat is None:
            self._beat = asyncio.ensure_future(self._heartbeat(self.options.keepalive))

    async def _heartbeat(self, seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            async with self.lock:
                await self._write(b":\n\n")

    async def _write(self, chunk: bytes, more: bool = True) -> None:
        if self.send is not None:
            try:
                await self.send({"type": "http.response.body", "body": chunk, "more_body": more})
            except OSError:
                self.send = None

    async def emit(self, message: Any, final: bool = False) -> None:
        """Number and keep one message, and write it to the connection if one is attached."""
        data = _encoded(message) if final else encode(message)
        async with self.lock:
            if self.finished:
                raise ConnectionError("the SSE stream has ended")
            self.seq += 1
            chunk = b"id: %s-%d\ndata: %s\n\n" % (self.key.encode("ascii"), self.seq, data)
            self._keep(chunk)
            await self._begin()
            await self._write(chunk, more=not final)
            if self.send is not None:
                self.sent = self.seq
            if final:
                self.finished = True
                self._release()

    def _keep(self, chunk: bytes) -> None:
        """Keep an event for resumption, within the stream's count and the session's bytes."""
        self.events.append((self.seq, chunk))
        self.kept += len(chunk)
        while len(self.events) > self.options.replay_limit:
            self.forget()
        if self.session is not None:
            self.session.trim(self)

    def forget(self) -> None:
        """Drop the oldest kept event."""
        self.kept -= len(self.events.popleft()[1])

    def _release(self) -> None:
        self.send = None
        self.ended.set()
        if self._beat is not None:
            self._beat.cancel()
            self._beat = None

    async def answer_json(self) -> bool:
        """Claim the POST for a plain JSON answer; False when it already went SSE."""
        async with self.lock:
            if self.start is None:
                return False
            self.start = None
            self.finished = True
            self.ended.set()
            return True

    async def close(self, final: bool = False) -> None:
        """End the current connection (after priming it), keeping the stream resumable unless `final`."""
        async with self.lock:
            await self._begin()
            await self._write(b"", more=False)
            if final:
                self.finished = True
            self._release()

    async def resume(self, send: Send, after: int) -> None:
        """Attach a new connection: replay the events after `after`, then write new ones as they come."""
        async with self.lock:
            if self.send is not None:
                raise _Reject(
                    409, error_body(INVALID_REQUEST, "Conflict: the stream is already connected")
                )
            self.ended.clear()
            self.send = send
            for seq, chunk in list(self.events):
                if seq > after:
                    await self._write(chunk)
                    self.sent = seq
            if self.finished:
                await self._write(b"", more=False)
                self._release()
            else:
                self._pulse()

    async def detach(self, send: Send) -> None:
        """End and forget the connection `send` if it still writes this stream."""
        async with self.lock:
            if self.send is send:
                await self._write(b"", more=False)
                self._release()

    async def request(self, method: str, params: dict[str, Any] | None) -> Any:
        """Send a request to the client on this stream (session era) and wait for its answer."""
        if self.session is None:
            raise ProtocolError(
                INTERNAL_ERROR, f"{method}: this protocol version sends no requests over HTTP"
            )
        return await self.session.ask(
            self if not self.finished else self.session.standalone, method, params
        )

    async def notify(self, method: str, params: dict[str, Any] | None) -> None:
        """Send a notification on this stream (or, once the stream has ended, on the session's GET stream)."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if self.finished:
            if self.session is None:
                logger.info("%s dropped: its request has been answered", method)
                return
            await self.session.standalone.emit(message)
            return
        await self.emit(message)


def _principal(token: AccessToken | None) -> tuple[str | None, str | None] | None:
    """Whom a verified access token speaks for (its subject and client), None without `auth`."""
    return None if token is None else (token.subject, token.client_id)


class _Session:
    """A session-era conversation: its Server, the requests it sent the client, its SSE streams."""

    def __init__(self, session_id: str, server: Peer, app: StreamableHTTP) -> None:
        self.id = session_id
        self.server = server
        self.options = app.streams
        self.revisions = app.revisions
        self.version: str | None = None
        self.last_seen = time.monotonic()
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.ids = itertools.count(1)
        self.keys = itertools.count(1)
        self.standalone = _Stream(self, "0", self.options)
        self.streams: collections.OrderedDict[str, _Stream] = collections.OrderedDict()
        self.closed = False
        self.active = 0
        """Requests of this session being served right now (POSTs and an attached GET stream)."""
        self.owner: tuple[str | None, str | None] | None = None
        """Whom the session belongs to on a server with `auth`: its access token's subject and client."""
        server.attach(self)

    @contextlib.contextmanager
    def working(self) -> Iterator[None]:
        """Count the block as activity: a session is never idle while it serves something."""
        self.active += 1
        try:
            yield
        finally:
            self.active -= 1
            self.last_seen = time.monotonic()

    def idle_for(self, now: float) -> float:
        """Seconds the session has done nothing: nothing served, nothing in flight, no stream attached."""
        busy = self.active or self.pending or self.server._mcp.flights or self.standalone.send
        return 0.0 if busy else now - self.last_seen

    def trim(self, keeping: _Stream) -> None:
        """Forget the oldest events of the session's streams until they fit its replay budget (the
        newest event of `keeping`, the stream just written, stays whatever its size)."""
        streams = [self.standalone, *self.streams.values()]
        total = sum(s.kept for s in streams)
        for stream in sorted(streams, key=lambda s: (not s.finished, s is keeping)):
            while total > self.options.replay_bytes and stream.events:
                if stream is keeping and len(stream.events) == 1:
                    return
                before = stream.kept
                stream.forget()
                total -= before - stream.kept

    def stream(self) -> _Stream:
        """A new stream for one POST."""
        return _Stream(self, str(next(self.keys)), self.options)

    def keep(self, stream: _Stream) -> None:
        """Keep a stream that went SSE for resumption, forgetting the oldest beyond the bound."""
        self.streams[stream.key] = stream
        while len(self.streams) > self.options.max_streams:
            self.streams.popitem(last=False)

    def find(self, event_id: str) -> tuple[_Stream, int] | None:
        """The stream and position an SSE event id names."""
        key, _, seq = event_id.strip().rpartition("-")
        stream = self.standalone if key == "0" else self.streams.get(key)
        if stream is None or not seq.isascii() or not seq.isdigit():
            return None
        return stream, int(seq)

    async def request(self, method: str, params: dict[str, Any] | None) -> Any:
        """Send a request that belongs to no request of the client's: on the standalone GET stream."""
        return await self.ask(self.standalone, method, params)

    async def ask(self, stream: _Stream, method: str, params: dict[str, Any] | None) -> Any:
        """Send a request to the client on `stream` and wait for the response it POSTs back."""
        if self.closed:
            raise ConnectionError("MCP session is closed")
        request_id = next(self.ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[request_id] = future
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        try:
            await stream.emit(message)
            return await future
        except asyncio.CancelledError:
            if not self.closed:
                with contextlib.suppress(Exception):
                    await _cancel(stream, self.revisions, self.version, request_id)
            raise
        finally:
            self.pending.pop(request_id, None)

    async def notify(self, method: str, params: dict[str, Any] | None) -> None:
        """Send a notification that belongs to no request: on the standalone GET stream."""
        await self.standalone.notify(method, params)

    def settle(self, response: Mapping[str, Any]) -> None:
        """Hand a response the client POSTed to the request of ours it answers."""
        request_id = response.get("id")
        future = self.pending.get(request_id) if type(request_id) is int else None
        if future is None or future.done():
            logger.warning("response to unknown request id %.100r ignored", request_id)
            return
        settle(future, response)

    async def close(self) -> None:
        """End the session: cancel its handlers and its requests to the client, end its streams."""
        self.closed = True
        endpoint = self.server._mcp
        for request_id in list(endpoint.flights):
            endpoint.cancel_in_flight(request_id)
        for future in self.pending.values():
            if not future.done():
                future.set_exception(ConnectionError("MCP session is closed"))
        for stream in (self.standalone, *self.streams.values()):
            with contextlib.suppress(Exception):
                await stream.close(final=True)
            stream.events.clear()
            stream.kept = 0
            stream.session = None
        self.streams.clear()
        self.server.attach(None)


class StreamableHTTP:
    """The ASGI 3 application `streamable_http_app` returns; `sessions` are the live session-era conversations."""

    def __init__(
        self,
        make_server: Callable[[], Peer],
        *,
        revisions: Revisions,
        path: str = "/mcp",
        allowed_origins: Iterable[str] | None = None,
        allowed_hosts: Iterable[str] | None = None,
        max_body: int = 4 * 1024 * 1024,
        max_sessions: int = 10_000,
        session_timeout: float = 3600.0,
        max_batch: int = 100,
        streams: StreamOptions = StreamOptions(),
        auth: ResourceServer | None = None,
    ) -> None:
        self.make_server = make_server
        self.revisions = revisions
        self.eras: Eras = eras(revisions)
        self.path = path.rstrip("/") or "/"
        self.allowed_origins = None if allowed_origins is None else tuple(allowed_origins)
        self.allowed_hosts = None if allowed_hosts is None else tuple(allowed_hosts)
        self.max_body = max_body
        self.max_sessions = max_sessions
        self.session_timeout = session_timeout
        self.max_batch = max_batch
        self.streams = streams
        self.auth = auth
        self.sessions: dict[str, _Session] = {}
        self._opening = 0
        """Sessions whose `initialize` is being answered: they count against `max_sessions` already."""
        self._sweeper: asyncio.Future[None] | None = None
        self._open: set[_Stream] = set()
        """Stateless-era SSE answers being written (a listen request's may never end by itself)."""
        self._signals: dict[int, Any] = {}
        """The handlers `_on_exit_signals` chained to, by signal."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection: lifespan, or an HTTP request to the MCP endpoint."""
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1003})
            return
        request = _Request(scope)
        sessions = bool(self.eras.session)
        if not self._signals:
            self._on_exit_signals()
        access = ACCESS.set(None)
        try:
            metadata = self._metadata(request, scope)
            if metadata is not None:
                await _respond_json(send, 200, metadata)
                return
            if self._route(scope) != self.path:
                raise _Reject(404, None)
            self._check_origin(request)
            if request.method in ("GET", "DELETE"):
                await self._admit(request, None)
            if request.method == "POST":
                await self._post(request, receive, send)
            elif request.method == "GET" and sessions:
                await self._get(request, receive, send)
            elif request.method == "DELETE" and sessions:
                await self._delete(request, send)
            else:
                allow = "GET, POST, DELETE" if sessions else "POST"
                raise _Reject(
                    405, error_body(INVALID_REQUEST, "Method not allowed"), [("allow", allow)]
                )
        except _Reject as reject:
            if reject.body is None:
                await _respond(send, reject.status, headers=reject.headers)
            else:
                await _respond_json(send, reject.status, reject.body, reject.headers)
        finally:
            ACCESS.reset(access)

    # --- authorization (an OAuth resource server, runtime/auth/resource.py) --------------------

    def _metadata(self, request: _Request, scope: Scope) -> dict[str, Any] | None:
        """The protected-resource metadata when the request asks for it (served to anyone)."""
        auth = self.auth
        if auth is None or request.method != "GET":
            return None
        if self._route(scope) != auth.metadata_path(self.path):
            return None
        return auth.metadata(request.origin, self.path)

    async def _admit(self, request: _Request, body: Any) -> None:
        """Let the request through with its verified token visible to handlers, or refuse it."""
        if self.auth is None:
            return
        messages = body if isinstance(body, list) else [body]
        try:
            ACCESS.set(
                await self.auth.admit(
                    request.get("authorization"), request.origin, self.path, messages
                )
            )
        except Refused as refused:
            raise _Reject(refused.status, refused.body, [("www-authenticate", refused.challenge)])

    def _route(self, scope: Scope) -> str:
        path: str = scope.get("path", "")
        root: str = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        return path.rstrip("/") or "/"

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def _on_exit_signals(self) -> None:
        """Chain to the handlers of SIGINT and SIGTERM (a server's, like uvicorn's, that start its graceful
        shutdown): the app then ends its SSE connections, which never end by themselves, so the server
        does not wait on them. They stay resumable; sessions end at the lifespan's shutdown (`aclose`).
        """
        if threading.current_thread() is not threading.main_thread():
            self._signals[0] = None  # nothing to chain to here: done
            return
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous = signal.getsignal(signum)
            self._signals[signum] = previous
            if not callable(previous) or previous is signal.default_int_handler:
                continue  # no server stops gracefully on it here: nothing waits on the streams

            def exiting(number: int, frame: Any, previous: Any = previous) -> None:
                with contextlib.suppress(RuntimeError):  # the loop is gone already
                    loop.call_soon_threadsafe(lambda: asyncio.ensure_future(self._let_go()))
                previous(number, frame)

            signal.signal(signum, exiting)

    async def _let_go(self) -> None:
        """End every SSE connection now (the server is stopping), leaving the streams resumable."""
        streams = [*self._open]
        for session in self.sessions.values():
            streams += [session.standalone, *session.streams.values()]
        for stream in streams:
            if stream.send is not None:
                with contextlib.suppress(Exception):
                    await stream.close()

    def _restore_signals(self) -> None:
        for signum, previous in self._signals.items():
            if signum and callable(previous):
                with contextlib.suppress(ValueError):  # not the main thread any more
                    signal.signal(signum, previous)
        self._signals = {}

    async def aclose(self) -> None:
        """End every session (as the server shuts down)."""
        self._restore_signals()
        sweeper, self._sweeper = self._sweeper, None
        if sweeper is not None:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper
        sessions, self.sessions = list(self.sessions.values()), {}
        for session in sessions:
            await session.close()

    async def _sweep(self) -> None:
        """End sessions idle for `session_timeout`, checking a few times per timeout while any exist."""
        while self.sessions:
            await asyncio.sleep(max(min(self.session_timeout / 4, 30.0), 0.05))
            now = time.monotonic()
            for stale in [
                s for s in self.sessions.values() if s.idle_for(now) > self.session_timeout
            ]:
                if stale.id in self.sessions:
                    logger.info(
                        "session %s ended after %.0f s idle", stale.id[:8], self.session_timeout
                    )
                    await asyncio.shield(self._end(stale))
        self._sweeper = None

    async def _end(self, session: _Session) -> None:
        """Forget and close `session`; the sweeper stops with the last session."""
        if self.sessions.pop(session.id, None) is None:
            return
        sweeper = self._sweeper
        if not self.sessions and sweeper is not None and sweeper is not asyncio.current_task():
            self._sweeper = None
            sweeper.cancel()
        await session.close()

    def _check_origin(self, request: _Request) -> None:
        """Refuse (403) a Host or Origin outside the allow-lists: DNS rebinding protection.

        Without lists, only what DNS rebinding cannot forge is admitted, wherever the server listens
        (a loopback, wildcard or public address, a Unix socket behind a proxy): IP literals and
        localhost, and Origins naming one of those. A server known by a DNS name lists it."""
        hosts, origins = self.allowed_hosts, self.allowed_origins
        host = request.get("host")
        name = _host_name(host) if host is not None else None
        if name is None or (hosts is None and not _unrebindable(name)):
            raise _Reject(403, error_body(INVALID_REQUEST, "Forbidden: Host not allowed"))
        if hosts is not None and not _matches(host or "", hosts, name):
            raise _Reject(403, error_body(INVALID_REQUEST, "Forbidden: Host not allowed"))
        origin = request.get("origin")
        if origin is None or (origins is not None and "*" in origins):
            return
        scheme, _, authority = origin.partition("://")
        where = _host_name(authority) if scheme.lower() in ("http", "https") else None
        if origins is not None:
            admitted = where is not None and _matches(
                origin, origins, f"{scheme.lower()}://{where}"
            )
        elif hosts is not None and "*" not in hosts:
            admitted = where is not None and _matches(authority, hosts, where)
        else:
            admitted = hosts is not None or (where is not None and _unrebindable(where))
        if not admitted:
            raise _Reject(403, error_body(INVALID_REQUEST, "Forbidden: Origin not allowed"))

    def _unsupported(self, version: str) -> _Reject:
        modern = self.eras.modern
        if modern is None or modern.unsupported_code is None:
            return _Reject(
                400,
                error_body(INVALID_REQUEST, f"Unsupported MCP-Protocol-Version: {version[:100]}"),
            )
        data: dict[str, Any] = {}
        if modern.supported_key:
            data[modern.supported_key] = newest_first(self.revisions.supported)
        if modern.requested_key:
            data[modern.requested_key] = version
        return _Reject(
            400,
            error_body(modern.unsupported_code, "Unsupported protocol version", data=data or None),
        )

    def _era(self, request: _Request, body: Any) -> str | None:
        """The stateless version a request names, or None for the session era; refuses what neither era speaks."""
        version = request.get("mcp-protocol-version")
        eras = self.eras
        if version in eras.stateless:
            return version
        if version is None:
            if eras.session:
                return None
            modern = eras.modern
            meta = mapping(
                mapping(mapping(body).get("params")).get(modern.meta_key if modern else "")
            )
            if modern is not None and modern.version_key not in meta:
                # No version anywhere: a client of the session era, which should learn what is spoken.
                requested = mapping(mapping(body).get("params")).get("protocolVersion")
                raise self._unsupported(requested if isinstance(requested, str) else "")
            code = modern.header_mismatch_code if modern is not None else None
            raise _Reject(
                400, error_body(code or INVALID_REQUEST, "Missing MCP-Protocol-Version header")
            )
        if version in eras.session or (eras.session and version == ASSUMED_VERSION):
            return None
        raise self._unsupported(version)

    async def _body(self, request: _Request, receive: Receive) -> Any:
        content_type = _media_types(request.get("content-type") or "")
        if content_type[:1] != ["application/json"]:
            raise _Reject(
                415,
                error_body(
                    INVALID_REQUEST, "Unsupported Media Type: Content-Type must be application/json"
                ),
            )
        accept = request.get("accept") or ""
        if not _accepts(accept, "application/json", "text/event-stream"):
            raise _Reject(
                406,
                error_body(
                    INVALID_REQUEST,
                    "Not Acceptable: Accept must list application/json and text/event-stream",
                ),
            )
        length = request.get("content-length")
        if length is not None and length.strip().isdigit() and int(length) > self.max_body:
            raise _Reject(
                413, error_body(INVALID_REQUEST, f"Request body larger than {self.max_body} bytes")
            )
        raw = await _read_body(receive, self.max_body)
        try:
            return load(raw)
        except ProtocolError as exc:
            raise _Reject(400, error_body(exc.code, exc.message)) from None

    async def _post(self, request: _Request, receive: Receive, send: Send) -> None:
        body = await self._body(request, receive)
        await self._admit(request, body)
        try:
            stateless = self._era(request, body)
        except _Reject as reject:
            if reject.body is not None and is_request(body) and valid_id(body["id"]):
                reject.body["id"] = body["id"]
            raise
        if stateless is not None:
            await self._post_stateless(request, body, stateless, receive, send)
        else:
            await self._post_session(request, body, receive, send)

    # --- session era ---------------------------------------------------------------------------

    def _session(self, request: _Request) -> _Session:
        session_id = request.get("mcp-session-id")
        if session_id is None:
            raise _Reject(
                400, error_body(INVALID_REQUEST, "Bad Request: Mcp-Session-Id header is required")
            )
        session = self.sessions.get(session_id)
        if session is None or session.owner != _principal(ACCESS.get()):
            # Another user's session is not found either: its id alone grants nothing.
            raise _Reject(404, error_body(INVALID_REQUEST, "Session not found"))
        session.last_seen = time.monotonic()
        return session

    def _new_session(self) -> _Session:
        if len(self.sessions) + self._opening >= self.max_sessions:
            raise _Reject(
                503, error_body(INTERNAL_ERROR, "Too many sessions"), [("retry-after", "1")]
            )
        session = _Session(secrets.token_urlsafe(24), self.make_server(), self)
        session.owner = _principal(ACCESS.get())
        return session

    def _same_version(self, request: _Request, session: _Session) -> None:
        """Refuse a request whose `MCP-Protocol-Version` is not its session's (absent, or the version the
        transport chapter says to assume, is the session's)."""
        version = request.get("mcp-protocol-version")
        if version not in (None, session.version, ASSUMED_VERSION):
            message = (
                f"MCP-Protocol-Version {version[:100]} is not the session's ({session.version})"
            )
            raise _Reject(400, error_body(INVALID_REQUEST, f"Bad Request: {message}"))

    async def _post_session(
        self, request: _Request, body: Any, receive: Receive, send: Send
    ) -> None:
        batch = isinstance(body, list)
        messages = body if batch else [body]
        if not all(isinstance(m, Mapping) for m in messages):
            raise _Reject(
                400, error_body(INVALID_REQUEST, "Invalid Request: not a JSON-RPC message")
            )
        initialize = any(
            isinstance(m.get("method"), str) and m["method"] in self.eras.handshakes
            for m in messages
        )
        if initialize and batch:
            raise _Reject(
                400, error_body(INVALID_REQUEST, "Invalid Request: initialize must not be batched")
            )
        session = self._new_session() if initialize else self._session(request)
        if not initialize:
            self._same_version(request, session)
        if batch and len(messages) > self.max_batch:
            raise _Reject(
                400,
                error_body(
                    INVALID_REQUEST, f"Invalid Request: more than {self.max_batch} messages"
                ),
            )
        if batch and session.version not in self.eras.batching:
            raise _Reject(
                400,
                error_body(
                    INVALID_REQUEST, "Invalid Request: batches are not allowed in this revision"
                ),
            )
        if not messages:
            raise _Reject(400, error_body(INVALID_REQUEST, "Invalid Request: empty batch"))
        responses = [m for m in messages if is_response(m)]
        for response in responses:
            session.settle(response)
        rest = [m for m in messages if not is_response(m)]
        if not any(is_request(m) for m in rest):
            with session.working():
                for message in rest:
                    reply = await session.server.handle(message)
                    if reply is not None:
                        raise _Reject(
                            400, {k: v for k, v in mapping(reply).items() if v is not None}
                        )
            await _respond(send, 202)
            return
        message = rest if isinstance(body, list) else rest[0]
        if initialize:
            self._opening += 1
        try:
            with session.working():
                await self._answer(session, message, receive, send, initialize)
        finally:
            if initialize:
                self._opening -= 1

    async def _answer(
        self, session: _Session, message: Any, receive: Receive, send: Send, initialize: bool
    ) -> None:
        stream = session.stream()
        headers = [("mcp-session-id", session.id)]

        async def begin() -> Send:
            session.keep(stream)
            return await _start_sse(send, session.id)

        stream.start = begin
        # A dropped connection lets go of the stream (the handler goes on; the client resumes it).
        watcher = asyncio.ensure_future(_disconnected(receive))
        watcher.add_done_callback(
            lambda w: None if w.cancelled() else asyncio.ensure_future(stream.detach(send))
        )
        token = INBOUND.set(Inbound(session.server, stream))
        try:
            reply = await session.server.handle(message)
        finally:
            INBOUND.reset(token)
            watcher.cancel()
        if initialize:
            ok = isinstance(reply, Mapping) and "result" in reply
            if ok:
                self.sessions[session.id] = session
                if self._sweeper is None:
                    self._sweeper = asyncio.ensure_future(self._sweep())
                session.version = self._negotiated(mapping(reply).get("result"))
            else:
                await session.close()
        if reply is None:
            if session.closed and await stream.answer_json():
                await _respond(send, 404, headers=headers)
            else:  # a cancelled request: its stream ends without an answer (a POST of a request gets SSE or JSON)
                await stream.close(final=True)
            return
        if await stream.answer_json():
            await _respond_json(send, 200, reply, headers if session.id in self.sessions else ())
            return
        with contextlib.suppress(ConnectionError):
            await stream.emit(reply, final=True)

    def _negotiated(self, result: Any) -> str | None:
        """The protocol version a handshake result names."""
        legacy = self.eras.legacy
        version = mapping(result).get(legacy.version_key) if legacy is not None else None
        return version if isinstance(version, str) else None

    async def _get(self, request: _Request, receive: Receive, send: Send) -> None:
        if not _accepts(request.get("accept") or "", "text/event-stream"):
            raise _Reject(
                406,
                error_body(INVALID_REQUEST, "Not Acceptable: Accept must list text/event-stream"),
            )
        if self._era(request, None) is not None:
            raise _Reject(
                405, error_body(INVALID_REQUEST, "Method not allowed"), [("allow", "POST")]
            )
        session = self._session(request)
        self._same_version(request, session)
        last = request.get("last-event-id")
        if last is not None:
            found = session.find(last)
            if found is None:
                raise _Reject(
                    400, error_body(INVALID_REQUEST, "Bad Request: unknown Last-Event-ID")
                )
            stream, after = found
        else:
            stream, after = session.standalone, session.standalone.sent
        if stream.send is not None:
            # The connection that holds it may be one that just dropped: give it a moment to let go.
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stream.ended.wait(), 2.0)
        if stream.send is not None:
            raise _Reject(
                409, error_body(INVALID_REQUEST, "Conflict: the stream is already connected")
            )
        await _start_sse(send, session.id)
        if last is None:
            await send({"type": "http.response.body", "body": stream._prime(), "more_body": True})
        await stream.resume(send, after)
        watcher = asyncio.ensure_future(_disconnected(receive))
        ended = asyncio.ensure_future(stream.ended.wait())
        try:
            with session.working():
                await asyncio.wait({watcher, ended}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watcher.cancel()
            ended.cancel()
            await stream.detach(send)

    async def _delete(self, request: _Request, send: Send) -> None:
        self._era(request, None)
        session = self._session(request)
        self._same_version(request, session)
        await self._end(session)
        await _respond(send, 200)

    # --- stateless era -------------------------------------------------------------------------

    async def _post_stateless(
        self, request: _Request, body: Any, version: str, receive: Receive, send: Send
    ) -> None:
        if not isinstance(body, Mapping):
            raise _Reject(
                400,
                error_body(
                    INVALID_REQUEST, "Invalid Request: the body must be one JSON-RPC message"
                ),
            )
        if is_response(body):
            raise _Reject(
                400,
                error_body(
                    INVALID_REQUEST, "Invalid Request: clients send no responses in this revision"
                ),
            )
        request_id = body.get("id") if is_request(body) and valid_id(body.get("id")) else None
        server = self.make_server()
        token = INBOUND.set(Inbound(server, None, version))
        try:
            await self._check_headers(request, body, request_id, server)
            if request_id is None:
                reply = await server.handle(body)
                if reply is not None:
                    raise _Reject(400, {k: v for k, v in mapping(reply).items() if v is not None})
                await _respond(send, 202)
                return
            stream = _Stream(None, "0", self.streams)
            stream.start = lambda: _start_sse(send, None)
            self._open.add(stream)
            INBOUND.set(Inbound(server, stream, version))
            server.attach(stream)
            endpoint = server._mcp
            watcher = asyncio.ensure_future(_disconnected(receive))
            watcher.add_done_callback(
                lambda w: None if w.cancelled() else endpoint.cancel_in_flight(request_id)
            )
            try:
                reply = await server.handle(body)
            finally:
                watcher.cancel()
                server.attach(None)
                self._open.discard(stream)
        finally:
            INBOUND.reset(token)
        if reply is None:
            if not await stream.answer_json():
                await stream.close(final=True)
            return
        if await stream.answer_json():
            error = reply.get("error") if isinstance(reply, Mapping) else None
            await _respond_json(send, self._status(error), reply)
            return
        with contextlib.suppress(ConnectionError):
            await stream.emit(reply, final=True)

    def _status(self, error: Any) -> int:
        """The HTTP status of a stateless-era answer: 404 for an unknown method, 400 for a refused request."""
        code = error.get("code") if isinstance(error, Mapping) else None
        if code == METHOD_NOT_FOUND:
            return 404
        if code in self.eras.refused:
            return 400
        return 200

    async def _check_headers(
        self, request: _Request, body: Mapping[str, Any], request_id: Any, server: Peer
    ) -> None:
        """Refuse (400, -32020) a stateless request whose mirrored headers are missing or disagree with its body."""
        modern = self.eras.modern
        assert modern is not None

        def mismatch(message: str) -> _Reject:
            code = modern.header_mismatch_code or INVALID_REQUEST
            return _Reject(400, error_body(code, f"Header mismatch: {message}", request_id))

        method = body.get("method")
        params = mapping(body.get("params"))
        meta = mapping(params.get(modern.meta_key))
        version = request.get("mcp-protocol-version")
        claimed = meta.get(modern.version_key)
        if claimed is not None and claimed != version:
            raise mismatch(
                f"MCP-Protocol-Version header {version!r} does not match _meta {claimed!r:.100}"
            )
        header = request.get("mcp-method")
        if request_id is not None and header is None:
            raise mismatch("Mcp-Method header is required")
        if header is not None and header != method:
            raise mismatch(f"Mcp-Method header {header!r:.100} does not match body method")
        field = self.eras.name_headers.get(method) if isinstance(method, str) else None
        if field is not None:
            raw = request.get("mcp-name")
            if raw is None:
                raise mismatch("Mcp-Name header is required")
            if decode_header(raw) != params.get(field):
                raise mismatch(f"Mcp-Name header does not match params.{field}")
        for name, raw in request.headers.items():
            if name.startswith("mcp-param-") and decode_header(raw) is None:
                raise mismatch(f"{name} header is malformed")
        tools = self.eras.tool_headers
        if tools is not None and method == tools.call:
            annotated = await _tool_annotations(
                server, self.eras, params.get(tools.name_key), params.get(modern.meta_key)
            )
            arguments = mapping(params.get(tools.arguments_key))
            for header_name, path in annotated.items():
                value = at(arguments, path)
                sent = request.get(f"mcp-param-{header_name.lower()}")
                if value is None:
                    continue
                if sent is None:
                    raise mismatch(f"Mcp-Param-{header_name} header is required")
                decoded = decode_header(sent)
                if decoded is None or not same(decoded, value):
                    raise mismatch(f"Mcp-Param-{header_name} header does not match the argument")


async def _cancel(channel: Any, revisions: Revisions, version: str | None, request_id: Any) -> None:
    """Tell the peer a request is cancelled, with the notification of the session's revision."""
    revision = revisions.get(version or "") or revisions[revisions.supported[-1]]
    if revision.cancelled is not None and revision.cancelled_id_key is not None:
        await channel.notify(revision.cancelled, {revision.cancelled_id_key: request_id})


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _tool_annotations(
    server: Peer, eras: Eras, tool: Any, meta: Any
) -> dict[str, tuple[str, ...]]:
    """The `x-mcp-header` annotations of the named tool, from the server's own tool list."""
    keys, modern = eras.tool_headers, eras.modern
    assert keys is not None and modern is not None
    cursor: Any = None
    for page in range(100):
        params: dict[str, Any] = {modern.meta_key: dict(meta)} if isinstance(meta, Mapping) else {}
        if cursor is not None and keys.cursor_key is not None:
            params[keys.cursor_key] = cursor
        request = {
            "jsonrpc": "2.0",
            "id": f"mcp-headers-{page}",
            "method": keys.listing,
            "params": params,
        }
        reply = await server.handle(request)
        result = reply.get("result") if isinstance(reply, Mapping) else None
        if not isinstance(result, Mapping):
            return {}
        for entry in result.get(keys.tools_key) or ():
            if isinstance(entry, Mapping) and entry.get(keys.name_key) == tool:
                return header_params(entry.get(keys.schema_key))
        cursor = result.get(keys.next_cursor_key) if keys.next_cursor_key else None
        if cursor is None:
            return {}
    return {}


async def close_sse_stream() -> bool:
    """From inside a handler: end the HTTP connection of its SSE stream now (session era), leaving the stream
    resumable with `Last-Event-ID` after the `retry` delay (SSE polling). False when there is no such stream.
    """
    context = CONTEXT.get()
    stream = context.route if context is not None else None
    if not isinstance(stream, _Stream) or stream.session is None or stream.finished:
        return False
    await stream.close()
    return True


def streamable_http_app(
    make_server: Callable[[], Peer],
    *,
    revisions: Revisions,
    path: str = "/mcp",
    allowed_origins: Iterable[str] | None = None,
    allowed_hosts: Iterable[str] | None = None,
    max_body: int = 4 * 1024 * 1024,
    max_sessions: int = 10_000,
    session_timeout: float = 3600.0,
    max_batch: int = 100,
    retry_ms: int = 1000,
    replay_limit: int = 256,
    replay_bytes: int = 1024 * 1024,
    keepalive: float | None = 15.0,
    auth: ResourceServer | None = None,
) -> StreamableHTTP:
    """An ASGI 3 app serving the MCP endpoint at `path` with a fresh `make_server()` per session or stateless request.

    A package's `http.streamable_http_app` gives `revisions` (the revisions it speaks). Host and Origin
    are checked against `allowed_hosts`/`allowed_origins` ("*" admits all; an entry without port admits
    every port); left None, only what DNS rebinding cannot forge is admitted: IP literals and localhost
    (a server known by a DNS name lists it). Bodies above `max_body` bytes are refused (413), batches of
    more than `max_batch` messages 400; at most `max_sessions` sessions live (503 beyond, handshakes in
    progress included), each ended after `session_timeout` seconds with nothing to do. SSE streams carry
    `retry_ms`, keep their last `replay_limit` events (at most `replay_bytes` per session, finished
    streams forgotten first) for `Last-Event-ID`, and send a comment every `keepalive` seconds.
    With `auth` the endpoint is an OAuth protected resource: it serves its metadata and admits only
    requests whose bearer token `auth` verifies (handlers read it with `auth.access_token()`).
    """
    return StreamableHTTP(
        make_server,
        revisions=revisions,
        path=path,
        allowed_origins=allowed_origins,
        allowed_hosts=allowed_hosts,
        max_body=max_body,
        max_sessions=max_sessions,
        session_timeout=session_timeout,
        max_batch=max_batch,
        streams=StreamOptions(
            retry_ms=retry_ms,
            replay_limit=replay_limit,
            replay_bytes=replay_bytes,
            keepalive=keepalive,
        ),
        auth=auth,
    )
