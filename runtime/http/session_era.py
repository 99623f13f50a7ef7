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
from ..jsonrpc import INTERNAL_ERROR, INVALID_REQUEST, settle_answer
from ..log import logger
from ..peer import Peer, received
from .common import ASSUMED_VERSION, error_body, mapping
from .lifecycle import Sessions
from .session import Answer, Session
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
        session = await self._new_session() if initialize else self._session(request)
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
            settle_answer(session.pending, response)
        if not asks:
            session.active += 1
            try:
                for message in rest:
                    reply = await session.server.handle(message)
                    if reply is not None:
                        raise Reject(
                            400, {k: v for k, v in mapping(reply).items() if v is not None}
                        )
            finally:
                session.active -= 1
                self.sessions.seen(session)
            await respond(send, 202)
            return
        if initialize:
            self._opening += 1
        session.active += 1
        try:
            answer = Answer(session, send)
            reply = await watched(
                received(session.server, rest if batch else rest[0], answer, None),
                receive,
                answer.gone,
            )
            if initialize:
                if isinstance(reply, Mapping) and "result" in reply:
                    self.sessions.add(session)
                    session.version = self._negotiated(mapping(reply).get("result"))
                else:
                    await session.close()
            if reply is None and not session.closed:
                # a cancelled request: its stream ends without an answer (a POST of a request gets SSE or JSON)
                await answer.opened().close(final=True)
                return
            stream = answer.stream
            if stream is None:  # the handler sent nothing: the POST is claimed for a JSON answer
                answer.answered = True
            elif not await stream.answer_json():
                if reply is None:
                    await stream.close(final=True)
                else:
                    with contextlib.suppress(ConnectionError):
                        await stream.emit(reply, final=True)
                return
            if reply is None:  # the session ended (DELETE) while its handler ran
                await respond(send, 404, headers=[("mcp-session-id", session.id)])
            elif session.id in self.sessions:
                await respond_json(send, 200, reply, [("mcp-session-id", session.id)])
            else:
                await respond_json(send, 200, reply)
        finally:
            session.active -= 1
            self.sessions.seen(session)
            if initialize:
                self._opening -= 1

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
        session.active += 1
        try:
            await asyncio.wait({watcher, ended}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            session.active -= 1
            self.sessions.seen(session)
            watcher.cancel()
            ended.cancel()
            await stream.detach(send)

    async def delete(self, request: Request, send: Send) -> None:
        """End the session the request names."""
        self._era(request, None)
        session = self._session(request)
        await self.sessions.end(session)
        await respond(send, 200)

    def _session(self, request: Request) -> Session:
        """The session a request's `Mcp-Session-Id` names, refusing a request whose `MCP-Protocol-Version`
        is not its session's (absent, or the version the transport chapter says to assume, is the session's).
        """
        session_id = request.get("mcp-session-id")
        if session_id is None:
            raise Reject(
                400, error_body(INVALID_REQUEST, "Bad Request: Mcp-Session-Id header is required")
            )
        session = self.sessions.get(session_id)
        token = ACCESS.get()
        if session is None or session.owner != (None if token is None else token.principal):
            # Another user's session is not found either: its id alone grants nothing.
            raise Reject(404, error_body(INVALID_REQUEST, "Session not found"))
        self.sessions.seen(session)
        version = request.get("mcp-protocol-version")
        if version not in (None, session.version, ASSUMED_VERSION):
            message = (
                f"MCP-Protocol-Version {version[:100]} is not the session's ({session.version})"
            )
            raise Reject(400, error_body(INVALID_REQUEST, f"Bad Request: {message}"))
        return session

    async def _new_session(self) -> Session:
        """A session for a handshake; when `max_sessions` are live, the one idle longest ends to make
        room (503 when every session looked at is busy, or the room is taken by handshakes in progress).
        """
        while len(self.sessions) + self._opening >= self.max_sessions:  # again after each wait
            idlest = self.sessions.idlest() if self.sessions else None
            if idlest is None:
                raise Reject(
                    503, error_body(INTERNAL_ERROR, "Too many sessions"), [("retry-after", "1")]
                )
            logger.info(
                "session %s ended to make room for a new one (%.0f s idle)",
                idlest.id[:8],
                idlest.idle_for(time.monotonic()),
            )
            await self.sessions.end(idlest)
        session = Session(
            secrets.token_urlsafe(24), self.make_server(), self.streams, self.revisions
        )
        token = ACCESS.get()
        session.owner = None if token is None else token.principal
        return session


def sort_messages(
    messages: list[Any], handshakes: Collection[str]
) -> tuple[list[Mapping[str, Any]], list[Any], bool, bool]:
    """A POST's messages sorted: the responses (`is_response`), the rest, whether a handshake is among
    them and whether any is a request (`is_request`); 400 unless each is a JSON object."""
    responses: list[Mapping[str, Any]] = []
    rest: list[Any] = []
    initialize = asks = False
    for m in messages:
        if type(m) is not dict and not isinstance(m, Mapping):  # not a JSON object
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
