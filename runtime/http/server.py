"""The Streamable HTTP server: an ASGI 3 application written with the standard library and pydantic alone.

Each request is served in the era of its protocol version: the session era (an `initialize` handshake,
`Mcp-Session-Id`, a standalone GET stream, SSE streams resumable with `Last-Event-ID`) or the stateless
era (no session, a fresh server per request, the version, method and name mirrored in headers that must
match the body). The app routes a request to its era's handler (`session_era.py`, `stateless.py`) once
the guard has admitted its Host and Origin and the resource server its token.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

from ..auth.resource import ACCESS, ResourceServer
from ..jsonrpc import INVALID_REQUEST, valid_id
from ..peer import CONTEXT, Peer
from ..revisions import Revisions
from .common import Eras, error_body, is_request
from .guard import refusal
from .lifecycle import Lifecycle, Sessions
from .session import Answer
from .session_era import SessionEra
from .stateless import Stateless
from .stream import Stream, StreamOptions
from .versions import Versions
from .protection import Protection
from .wire import Receive, Reject, Request, Scope, Send, paths, read_json, respond, respond_json


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
        versions = Versions(revisions)
        self.eras: Eras = versions.eras
        self.path = path.rstrip("/") or "/"
        self.allowed_origins = None if allowed_origins is None else tuple(allowed_origins)
        self.allowed_hosts = None if allowed_hosts is None else tuple(allowed_hosts)
        self.max_body = max_body
        self.max_sessions = max_sessions
        self.session_timeout = session_timeout
        self.max_batch = max_batch
        self.streams = streams
        self.auth = auth
        self._protection = Protection(auth, self.path) if auth is not None else None
        self.sessions = Sessions(session_timeout)
        stateless = Stateless(make_server, self.eras, streams)
        session_era = SessionEra(
            make_server,
            versions,
            self.sessions,
            streams,
            max_sessions=max_sessions,
            max_batch=max_batch,
        )
        self._lifecycle = Lifecycle(self.sessions, stateless.open_streams)
        self._signals = self._lifecycle.signals
        """The signal handlers the lifecycle chained to: empty until a request makes it watch them."""
        # The steps of the request path, bound once: the router calls them on every request.
        self._sessions = bool(self.eras.session)
        """Whether any version is served in sessions (GET and DELETE then have a meaning)."""
        self._allow = "GET, POST, DELETE" if self._sessions else "POST"
        self._refusal = functools.partial(refusal, self.allowed_hosts, self.allowed_origins)
        """Why a Host and Origin are refused (`guard.refusal` with the app's lists), None if admitted."""
        self._era = versions.era
        self._post_stateless = stateless.post
        self._post_session = session_era.post
        self._get = session_era.get
        self._delete = session_era.delete

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection: lifespan, or an HTTP request to the MCP endpoint."""
        if scope["type"] == "lifespan":
            await self._lifecycle.lifespan(receive, send)
            return
        if scope["type"] != "http":
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1003})
            return
        request = Request(scope)
        method = request.method
        if not self._signals:
            self._lifecycle.watch_signals()
        access = ACCESS.set(None)
        try:
            protection = self._protection
            metadata = method == "GET" and protection is not None and protection.is_metadata(scope)
            path = scope.get("path")  # the endpoint's own path, unmounted: no need to work it out
            if (
                not metadata
                and (path != self.path or scope.get("root_path"))
                and paths(scope)[0] != self.path
            ):
                raise Reject(404, None)
            refused = self._refusal(request.get("host"), request.get("origin"))
            if refused is not None:
                raise Reject(403, error_body(INVALID_REQUEST, refused))
            token = None
            if protection is not None:
                if metadata:
                    await respond_json(send, 200, protection.metadata(request, scope))
                    return
                # the token first: nothing of the request is read before
                token = await protection.authenticate(request, scope)
                ACCESS.set(token)
                if method != "POST":
                    protection.authorize(token, request, scope, None)
            if method == "POST":
                body = await read_json(request, receive, self.max_body)
                if protection is not None and token is not None:
                    protection.authorize(token, request, scope, body)
                try:
                    stateless = self._era(request, body)
                except Reject as reject:
                    if reject.body is not None and is_request(body) and valid_id(body["id"]):
                        reject.body["id"] = body["id"]
                    raise
                if stateless is not None:
                    await self._post_stateless(request, body, stateless, receive, send)
                else:
                    await self._post_session(request, body, receive, send)
            elif method == "GET" and self._sessions:
                await self._get(request, receive, send)
            elif method == "DELETE" and self._sessions:
                await self._delete(request, send)
            else:
                raise Reject(
                    405, error_body(INVALID_REQUEST, "Method not allowed"), [("allow", self._allow)]
                )
        except Reject as reject:
            if reject.body is None:
                await respond(send, reject.status, headers=reject.headers)
            else:
                await respond_json(send, reject.status, reject.body, reject.headers)
        finally:
            ACCESS.reset(access)

    async def aclose(self) -> None:
        """End every session (as the server shuts down)."""
        await self._lifecycle.aclose()


async def close_sse_stream() -> bool:
    """From inside a handler: end the HTTP connection of its SSE stream now (session era), leaving the stream
    resumable with `Last-Event-ID` after the `retry` delay (SSE polling). False when there is no such stream.
    """
    context = CONTEXT.get()
    route = context.route if context is not None else None
    stream = route.opened() if isinstance(route, Answer) else route
    if not isinstance(stream, Stream) or stream.session is None or stream.finished:
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
    more than `max_batch` messages 400; at most `max_sessions` sessions live (handshakes in progress
    included; beyond, a new one takes the place of the one idle longest, 503 while all are busy), each
    ended after `session_timeout` seconds with nothing to do. SSE streams carry
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
