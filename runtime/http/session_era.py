"""The session era's request path: POSTs in a session (its handshake opens it), the standalone GET stream and
DELETE, each checked against the session its `Mcp-Session-Id` names."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Callable, Collection, Mapping
from typing import Any

from ..auth.resource import ACCESS
from ..jsonrpc import INTERNAL_ERROR, INVALID_REQUEST
from ..peer import INBOUND, Inbound, Peer
from .common import ASSUMED_VERSION, error_body, is_object, mapping
from .lifecycle import Sessions
from .session import Session, principal
from .stream import StreamOptions
from .versions import Versions
from .wire import (
    Receive,
    Reject,
    Request,
    Send,
    accepts,
    disconnected,
    respond,
    respond_json,
    start_sse,
    watched,
)


class SessionEra:
    """Serves the requests of session-era versions in the app's live `sessions`."""

    def __init__(
        self,
        make_server: Callable[[], Peer],
        versions: Versions,
        sessions: Sessions,
        streams: StreamOptions,
        *,
        max_sessions: int,
        max_batch: int,
    ) -> None:
        self.make_server = make_server
        self.revisions = versions.revisions
        self.eras = versions.eras
        self._era = versions.era
        self.sessions = sessions
        self.streams = streams
        self.max_sessions = max_sessions
        self.max_batch = max_batch
        self._opening = 0
        """Sessions whose `initialize` is being answered: they count against `max_sessions` already."""

    async def post(self, request: Request, body: Any, receive: Receive, send: Send) -> None:
        """Serve a POSTed message or batch: a handshake opens a session, the rest belong to one."""
        batch = isinstance(body, list)
        messages = body if batch else [body]
        responses, rest, initialize, asks = sort_messages(messages, self.eras.handshakes)
        if initialize and batch:
            raise Reject(
                400, error_body(INVALID_REQUEST, "Invalid Request: initialize must not be batched")
            )
        session = self._new_session() if initialize else self._session(request)
        if not initialize:
            self._same_version(request, session)
        if batch and len(messages) > self.max_batch:
            raise Reject(
                400,
                error_body(
                    INVALID_REQUEST, f"Invalid Request: more than {self.max_batch} messages"
                ),
            )
        if batch and session.version not in self.eras.batching:
            raise Reject(
                400,
                error_body(
                    INVALID_REQUEST, "Invalid Request: batches are not allowed in this revision"
                ),
            )
        if not messages:
            raise Reject(400, error_body(INVALID_REQUEST, "Invalid Request: empty batch"))
        for response in responses:
            session.settle(response)
        if not asks:
            with session.working():
                for message in rest:
                    reply = await session.server.handle(message)
                    if reply is not None:
                        raise Reject(
                            400, {k: v for k, v in mapping(reply).items() if v is not None}
                        )
            await respond(send, 202)
            return
        answered: Any = rest if batch else rest[0]
        if initialize:
            self._opening += 1
        try:
            with session.working():
                await self._answer(session, answered, receive, send, initialize)
        finally:
            if initialize:
                self._opening -= 1

    async def _answer(
        self, session: Session, message: Any, receive: Receive, send: Send, initialize: bool
    ) -> None:
        stream = session.stream()
        headers = [("mcp-session-id", session.id)]

        async def begin() -> Send:
            session.keep(stream)
            return await start_sse(send, session.id)

        stream.start = begin
        token = INBOUND.set(Inbound(session.server, stream))
        try:
            # A dropped connection lets go of the stream (the handler goes on; the client resumes it).
            reply = await watched(
                session.server.handle(message),
                receive,
                lambda: asyncio.ensure_future(stream.detach(send)),
            )
        finally:
            INBOUND.reset(token)
        if initialize:
            ok = isinstance(reply, Mapping) and "result" in reply
            if ok:
                self.sessions.add(session)
                session.version = self._negotiated(mapping(reply).get("result"))
            else:
                await session.close()
        if reply is None:
            if session.closed and await stream.answer_json():
                await respond(send, 404, headers=headers)
            else:  # a cancelled request: its stream ends without an answer (a POST of a request gets SSE or JSON)
                await stream.close(final=True)
            return
        if await stream.answer_json():
            await respond_json(send, 200, reply, headers if session.id in self.sessions else ())
            return
        with contextlib.suppress(ConnectionError):
            await stream.emit(reply, final=True)

    def _negotiated(self, result: Any) -> str | None:
        """The protocol version a handshake result names."""
        legacy = self.eras.legacy
        version = mapping(result).get(legacy.version_key) if legacy is not None else None
        return version if isinstance(version, str) else None

    async def get(self, request: Request, receive: Receive, send: Send) -> None:
        """Attach the connection to the session's standalone stream, or resume a stream at `Last-Event-ID`."""
        if not accepts(request.get("accept") or "", "text/event-stream"):
            raise Reject(
                406,
                error_body(INVALID_REQUEST, "Not Acceptable: Accept must list text/event-stream"),
            )
        if self._era(request, None) is not None:
            raise Reject(
                405, error_body(INVALID_REQUEST, "Method not allowed"), [("allow", "POST")]
            )
        session = self._session(request)
        self._same_version(request, session)
        last = request.get("last-event-id")
        if last is not None:
            found = session.find(last)
            if found is None:
                raise Reject(400, error_body(INVALID_REQUEST, "Bad Request: unknown Last-Event-ID"))
            stream, after = found
        else:
            stream, after = session.standalone, session.standalone.sent
        if stream.send is not None:
            # The connection that holds it may be one that just dropped: give it a moment to let go.
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stream.ended.wait(), 2.0)
        if stream.send is not None:
            raise Reject(
                409, error_body(INVALID_REQUEST, "Conflict: the stream is already connected")
            )
        await start_sse(send, session.id)
        if last is None:
            await send({"type": "http.response.body", "body": stream.prime(), "more_body": True})
        await stream.resume(send, after)
        watcher = asyncio.ensure_future(disconnected(receive))
        ended = asyncio.ensure_future(stream.ended.wait())
        try:
            with session.working():
                await asyncio.wait({watcher, ended}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watcher.cancel()
            ended.cancel()
            await stream.detach(send)

    async def delete(self, request: Request, send: Send) -> None:
        """End the session the request names."""
        self._era(request, None)
        session = self._session(request)
        self._same_version(request, session)
        await self.sessions.end(session)
        await respond(send, 200)

    def _session(self, request: Request) -> Session:
        session_id = request.get("mcp-session-id")
        if session_id is None:
            raise Reject(
                400, error_body(INVALID_REQUEST, "Bad Request: Mcp-Session-Id header is required")
            )
        session = self.sessions.get(session_id)
        if session is None or session.owner != principal(ACCESS.get()):
            # Another user's session is not found either: its id alone grants nothing.
            raise Reject(404, error_body(INVALID_REQUEST, "Session not found"))
        session.last_seen = time.monotonic()
        return session

    def _new_session(self) -> Session:
        if len(self.sessions) + self._opening >= self.max_sessions:
            raise Reject(
                503, error_body(INTERNAL_ERROR, "Too many sessions"), [("retry-after", "1")]
            )
        session = Session(
            secrets.token_urlsafe(24), self.make_server(), self.streams, self.revisions
        )
        session.owner = principal(ACCESS.get())
        return session

    def _same_version(self, request: Request, session: Session) -> None:
        """Refuse a request whose `MCP-Protocol-Version` is not its session's (absent, or the version the
        transport chapter says to assume, is the session's)."""
        version = request.get("mcp-protocol-version")
        if version not in (None, session.version, ASSUMED_VERSION):
            message = (
                f"MCP-Protocol-Version {version[:100]} is not the session's ({session.version})"
            )
            raise Reject(400, error_body(INVALID_REQUEST, f"Bad Request: {message}"))


def sort_messages(
    messages: list[Any], handshakes: Collection[str]
) -> tuple[list[Mapping[str, Any]], list[Any], bool, bool]:
    """A POST's messages sorted: the responses (`is_response`), the rest, whether a handshake is among
    them and whether any is a request (`is_request`); 400 unless each is a JSON object."""
    responses: list[Mapping[str, Any]] = []
    rest: list[Any] = []
    initialize = asks = False
    for m in messages:
        if not is_object(m):
            raise Reject(
                400, error_body(INVALID_REQUEST, "Invalid Request: not a JSON-RPC message")
            )
        method = m.get("method")
        if isinstance(method, str):  # a request or a notification
            initialize = initialize or method in handshakes
            asks = asks or "id" in m
            rest.append(m)
        elif "method" not in m and ("result" in m or "error" in m):
            responses.append(m)
        else:
            rest.append(m)
    return responses, rest, initialize, asks
